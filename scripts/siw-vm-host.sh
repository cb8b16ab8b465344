#!/usr/bin/env bash
# scripts/siw-vm-host.sh: whether this host can build interop-tests' siw VM. It builds only on a
# Debian 12 (bookworm) amd64 host: build-vm.sh takes the guest's kernel packages and rootfs from
# this host's apt sources, and interop-tests/siw-tools/build.sh builds iwarp_peer against this
# host's glibc and rdma-core. Exits 0 on such a host; elsewhere prints what the host is and exits 1.
set -euo pipefail
host_os="$( (. /etc/os-release 2>/dev/null && echo "${ID:-?} ${VERSION_ID:-?} ${VERSION_CODENAME:-}") || echo "? ? ")"
host_arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
read -r os_id os_version os_codename <<<"$host_os" || true
if { [ "$os_codename" = bookworm ] || { [ "$os_id" = debian ] && [ "${os_version%%.*}" = 12 ]; }; } \
    && [ "$host_arch" = amd64 ]; then
  exit 0
fi
host="$( (. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}") || true)"
echo "${host:-an unknown system (no /etc/os-release)} on $host_arch"
exit 1
