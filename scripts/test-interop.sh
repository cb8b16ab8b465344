#!/usr/bin/env bash
# docs/siw-interop.md: only interop-tests (siw and NFS/RDMA against Linux), with the
# modules it needs built but their own tests not run. A missing peer is a failure here, not a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
if ! host="$(bash scripts/siw-vm-host.sh)"; then
  echo "test-interop.sh: the siw VM builds only on a Debian 12 (bookworm) amd64 host; this is $host" >&2
  exit 1
fi
bash interop-tests/vm/build-vm.sh >/dev/null
./mvnw -B verify -pl interop-tests -am -Diwarp4j.interop.required=true \
  -Dtest='org/iwarp4j/interop/**/*Test' -Dsurefire.failIfNoSpecifiedTests=false "$@"
