#!/usr/bin/env bash
# Builds iwarp_peer (the Linux end of the siw interop tests, see docs/siw-interop.md) on this host and
# prints the binary's path. The guest has no compiler; host and guest are both Debian bookworm
# (rdma-core 44), so the dynamically linked binary runs in the guest as built here.
#
#   interop-tests/siw-tools/build.sh [OUTPUT_DIR]   # default: ../target/siw-tools
#
# Installs gcc, libibverbs-dev and librdmacm-dev with apt if they are missing (needs root or
# sudo). Rebuilds only when iwarp_peer.c or this script changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../target/siw-tools}
log() { echo "siw-tools: $*" >&2; }

if ! command -v gcc >/dev/null 2>&1 || [ ! -f /usr/include/rdma/rdma_cma.h ] \
    || [ ! -f /usr/include/infiniband/verbs.h ]; then
  command -v apt-get >/dev/null 2>&1 || { log "no apt-get; please install gcc, libibverbs-dev, librdmacm-dev"; exit 1; }
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; [ -t 0 ] || sudo="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive
  log "installing gcc libibverbs-dev librdmacm-dev"
  $sudo apt-get install -y -qq --no-install-recommends gcc libc6-dev libibverbs-dev librdmacm-dev >/dev/null 2>&1 \
    || { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends \
           gcc libc6-dev libibverbs-dev librdmacm-dev >/dev/null; }
fi

hash=$(cat "$here/iwarp_peer.c" "$here/build.sh" | sha256sum | cut -c1-16)
binary=$out/iwarp_peer-$hash
if [ ! -x "$binary" ]; then
  mkdir -p "$out"
  gcc -O2 -Wall -Wextra -Werror -o "$binary.tmp" "$here/iwarp_peer.c" -libverbs -lrdmacm
  strip "$binary.tmp"
  mv "$binary.tmp" "$binary"
  log "built $binary"
fi
echo "$binary"
