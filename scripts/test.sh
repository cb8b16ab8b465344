#!/usr/bin/env bash
# README's test command: installs what the tests need (tshark, python3), then builds and runs every test.
# Without arguments it then runs the unit tests again on a second JDK, when the machine has one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
# interop-tests' Linux iWARP peer VM: reused from ~/.cache/iwarp4j, built (minutes) when missing.
# It builds only on a Debian 12 (bookworm) amd64 host (scripts/siw-vm-host.sh says why). Elsewhere
# say so once, then as for a failed build: the interop tests skip themselves, and under CI=true the
# run fails here, before Maven.
if host="$(bash scripts/siw-vm-host.sh)"; then
  bash interop-tests/vm/build-vm.sh >/dev/null || [ "${CI:-}" != true ]
else
  if [ "${CI:-}" = true ]; then
    echo "test.sh: the siw VM builds only on a Debian 12 (bookworm) amd64 host; this is $host: under CI=true this fails" >&2
    exit 1
  fi
  echo "test.sh: the siw VM builds only on a Debian 12 (bookworm) amd64 host; this is $host: interop tests will be skipped" >&2
fi
./mvnw -B verify "$@"
# Every Jazzer target fuzzed briefly (docs/fuzzing.md); the build above already replayed their inputs.
bash scripts/fuzz.sh 10
# A second JDK (IWARP4J_SECOND_JDK, else the newest under /usr/lib/jvm of another feature release
# than the JDK ./mvnw used above, JAVA_HOME's or else the java on PATH's): from Java 24 Netty leaves sun.misc.Unsafe off and its buffers are memory
# segments, so the data path copies and recognises placed octets another way (docs/jdk.md).
# The same unit tests, without interop-tests (the VM's cases do not depend on the JDK).
if [ $# -eq 0 ] && second="$(bash scripts/second-jdk.sh)" && [ -n "$second" ]; then
  echo "test.sh: the unit tests again on $("$second/bin/java" -version 2>&1 | head -1) ($second)"
  JAVA_HOME="$second" ./mvnw -B verify -pl '!interop-tests,!benchmarks'
  # The jar as a user runs it: Write, Read and Send verified end to end, and nothing on stderr (the
  # manifest grants native access; before c864051 every Write failed here on Java 25).
  for op in write read send; do
    err="$("$second/bin/java" -jar cli/target/iwarp.jar bench "$op" -n 2000 --warmup 0 --no-tcp 2>&1 >/dev/null)" \
      || { echo "test.sh: iwarp bench $op failed on $second: $err" >&2; exit 1; }
    [ -z "$err" ] || { echo "test.sh: iwarp bench $op on $second wrote to stderr: $err" >&2; exit 1; }
  done
  echo "test.sh: iwarp bench write, read and send verified on $second"
elif [ $# -eq 0 ]; then
  echo "test.sh: no second JDK found (set IWARP4J_SECOND_JDK to a JAVA_HOME); the unit tests ran on one JDK only"
fi
