#!/usr/bin/env bash
# Installs the system packages the tests use. Idempotent; installs with apt, as root or with sudo.
#  - tshark: Wireshark's dissectors judge our own FPDUs (MPA/DDP/RDMAP, CRC). Tests that need it
#    skip themselves when it is missing, so a machine without apt still builds and tests.
#  - python3: scripts/perf-summary.py (the medians of scripts/perf-rounds.sh) and its test
#    (tools' PerfSummaryScriptTest, skipped without python3).
# When it cannot install (no apt-get, or neither root nor sudo) it says what is missing and how to
# install it, and exits 0 (the tests that need it skip), except under CI=true, where it fails.
set -euo pipefail
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v python3 >/dev/null 2>&1 || need+=(python3)
[ ${#need[@]} -eq 0 ] && exit 0

cannot() { # why, how to install
  if [ "${CI:-}" = true ]; then
    echo "install-test-deps: ${need[*]} missing and $1; $2. Under CI=true this fails." >&2
    exit 1
  fi
  echo "install-test-deps: ${need[*]} missing and $1; $2. The tests that need them will be skipped." >&2
  exit 0
}
command -v apt-get >/dev/null 2>&1 \
  || cannot "no apt-get here" "install them with this system's package manager"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 \
    || cannot "neither root nor sudo to install them" "as root: apt-get install ${need[*]}"
  sudo="sudo"
  # Without a terminal sudo must not wait for a password nobody can type.
  [ -t 0 ] || sudo="sudo -n"
fi
# Non-root capture is not needed: tshark only reads files here.
{ echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections \
    && $sudo apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null; } \
  || cannot "installing them with apt-get${sudo:+ through $sudo} failed (above)" "install them: apt-get install ${need[*]}"
