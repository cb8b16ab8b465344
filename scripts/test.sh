#!/usr/bin/env bash
# README's test command: installs what the tests need (tshark), then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
./mvnw -B verify "$@"
