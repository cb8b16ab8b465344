#!/usr/bin/env bash
# Fuzzes every Jazzer target (each *FuzzTarget class has one @FuzzTest) for a budget each.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [CLASS_PATTERN]     e.g. scripts/fuzz.sh 3600
#
# Default 10 s per target (what scripts/test.sh runs); CLASS_PATTERN (surefire -Dtest syntax,
# default *FuzzTarget) picks targets, e.g. 'MpaFrame*FuzzTarget'. Jazzer fuzzes only one @FuzzTest
# per JVM, so surefire forks a fresh JVM per class (reuseForks=false). Each target first replays its
# inputs in src/test/resources/<package>/<Class>Inputs/fuzz/, then fuzzes from them; the corpus it
# grows is kept in <module>/.cifuzz-corpus/ (not committed). A crashing input is written beside the
# seeds as crash-<sha1> (timeout-<sha1> for a hang) and from then on replays in every build as a
# regression test: fix the bug, keep the file. Prints, per target, the executions run and the
# findings; exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
pattern="${2:-*FuzzTarget}"

modules="$(find . -path '*/src/test/java/*' -name '*FuzzTarget.java' -not -path './.git/*' \
  | sed -E 's|^\./([^/]+)/src/test/java/.*|\1|' | sort -u | paste -sd, -)"
mkdir -p target
log="target/fuzz.log"
marker="target/fuzz.started"
touch "$marker"
echo "fuzz.sh: ${seconds} s per target in ${modules} (log: ${log})"

set +e
JAZZER_FUZZ=1 ./mvnw -B ${FUZZ_MAVEN_OPTS:-} -pl "$modules" -am test \
  -Dtest="$pattern" -Dsurefire.failIfNoSpecifiedTests=false -DreuseForks=false \
  -Dmaven.test.failure.ignore=true \
  -Djazzer.internal.arg.0=fuzz "-Djazzer.internal.arg.1=-max_total_time=${seconds}" >"$log" 2>&1
status=$?
set -e

# Per target: libFuzzer names the target's corpus directory (.cifuzz-corpus/<class>/...) before it
# starts and ends with "Done N runs in S second(s)"; surefire's summary line for the class gives
# the findings. libFuzzer writes to the fork's stderr, so its lines may come after surefire's.
awk '
  /using inputs from: .*\.cifuzz-corpus\// {
    cls = $0; sub(/.*\.cifuzz-corpus\//, "", cls); sub(/\/.*/, "", cls); sub(/.*\./, "", cls)
    current = cls; if (!(cls in seen)) { seen[cls] = 1; order[n++] = cls }
  }
  /^Done [0-9]+ runs in/ { if (current != "") runs[current] = $2 }
  /Tests run: .* -- in .*FuzzTarget/ {
    cls = $NF; sub(/.*\./, "", cls)
    f = $6; e = $8; gsub(/,/, "", f); gsub(/,/, "", e)
    findings[cls] = f + e; if (!(cls in seen)) { seen[cls] = 1; order[n++] = cls }
  }
  END {
    for (i = 0; i < n; i++) {
      c = order[i]
      printf "  %-40s executions %-10s findings %d\n", c, (c in runs ? runs[c] : "-"), findings[c]
    }
  }' "$log"

crashes="$(find . -path '*/src/test/resources/*Inputs/*' -newer "$marker" -type f \
  \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'slow-unit-*' \) | sort)"
failed=0
if [ -n "$crashes" ]; then
  echo "fuzz.sh: new crashing inputs (kept as regression tests):"
  echo "$crashes" | sed 's/^/  /'
  failed=1
fi
if grep -qE 'Tests run: .*(Failures: [1-9]|Errors: [1-9])' "$log"; then
  grep -E '^\[ERROR\] .*FuzzTarget|== Java Exception|FuzzTestFindingException' "$log" | head -40 || true
  failed=1
fi
if [ "$status" -ne 0 ]; then
  echo "fuzz.sh: the build failed (exit $status); see $log" >&2
  grep -E '^\[ERROR\]' "$log" | head -20 >&2 || true
  failed=1
fi
[ "$failed" -eq 0 ] && echo "fuzz.sh: no findings" || { echo "fuzz.sh: FINDINGS (see $log)" >&2; exit 1; }
