#!/usr/bin/env bash
# Installs the system packages the tests use. Idempotent; needs root (or sudo) and apt.
#  - tshark: Wireshark's dissectors judge our own FPDUs (MPA/DDP/RDMAP, CRC). Tests that need it
#    skip themselves when it is missing, so a machine without apt still builds and tests.
#  - python3: scripts/perf-summary.py (the medians of scripts/perf-rounds.sh) and its test.
set -euo pipefail
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v python3 >/dev/null 2>&1 || need+=(python3)
[ ${#need[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: no apt-get; please install: ${need[*]}" >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Non-root capture is not needed: tshark only reads files here.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
