#!/usr/bin/env bash
# README's test command: installs what the tests need (tshark), then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
# interop-tests' Linux iWARP peer VM: reused from ~/.cache/iwarp4j, built (minutes) when missing.
bash interop-tests/vm/build-vm.sh >/dev/null || [ "${CI:-}" != true ]
./mvnw -B verify "$@"
# Every Jazzer target fuzzed briefly (docs/fuzzing.md); the build above already replayed their inputs.
bash scripts/fuzz.sh 10
