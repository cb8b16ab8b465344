#!/usr/bin/env bash
# Prints the JAVA_HOME of a second JDK to test on, or nothing: $IWARP4J_SECOND_JDK if set ("none":
# nothing), else the newest JDK under /usr/lib/jvm whose feature release differs from that of the
# JDK ./mvnw builds with: JAVA_HOME's when it is set (and never JAVA_HOME itself, under any of its
# names), else the java on PATH's. scripts/test.sh runs the unit tests on it.
set -uo pipefail
feature() { "$1" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p'; }
if [ -n "${IWARP4J_SECOND_JDK:-}" ]; then
  [ "$IWARP4J_SECOND_JDK" = none ] || echo "$IWARP4J_SECOND_JDK"
  exit 0
fi
if [ -n "${JAVA_HOME:-}" ]; then
  default="$(feature "$JAVA_HOME/bin/java")"
  first="$(realpath -q "$JAVA_HOME" || true)"
else
  default="$(feature java)"
  first=""
fi
best=""; best_feature=0
for home in /usr/lib/jvm/*/; do
  home="${home%/}"
  [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
  # /usr/lib/jvm holds links too (default-java, java-17-openjdk -> java-17-openjdk-amd64).
  [ -z "$first" ] || [ "$(realpath -q "$home")" != "$first" ] || continue
  f="$(feature "$home/bin/java")"
  [ -n "$f" ] && [ "$f" != "$default" ] && [ "$f" -gt "$best_feature" ] || continue
  best="$home"; best_feature="$f"
done
echo "$best"
