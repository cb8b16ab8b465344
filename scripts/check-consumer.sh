#!/usr/bin/env bash
# Checks iwarp4j as a stranger's project would use it: installs the artifacts into the local Maven
# repository (~/.m2), then builds and runs a throwaway project made of nothing but README.md's
# "Use it from your project" blocks (the ```xml dependency lines and the ```java program).
#
#   scripts/check-consumer.sh          # install, then build the throwaway project offline and run it
#   scripts/check-consumer.sh -o       # the install too without network (every plugin already present)
#   MAVEN_OPTS=-Dmaven.repo.local=DIR scripts/check-consumer.sh -o
#                                      # install into, and build from, another local repository (e.g. a copy
#                                      # of ~/.m2/repository), leaving ~/.m2 as it was
#
# Extra arguments go to the install. Prints the program's output; exits non-zero unless it printed the
# four successful completions and "hello, iWARP".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

echo "check-consumer: ./mvnw -B install -DskipTests $*" >&2
./mvnw -B -q install -DskipTests "$@"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The section runs from its heading to the next "## " heading; take its one xml and one java block.
section() { awk '/^## Use it from your project$/ {on=1; next} on && /^## / {exit} on' README.md; }
block() { section | awk -v lang="$1" '$0 == "```" lang {on=1; next} on && $0 == "```" {exit} on'; }
xml="$(block xml)"
java="$(block java)"
[ -n "$xml" ] && [ -n "$java" ] || { echo "check-consumer: README.md's blocks not found" >&2; exit 1; }
class="$(printf '%s\n' "$java" | sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' | head -1)"
[ -n "$class" ] || { echo "check-consumer: no public class in README.md's program" >&2; exit 1; }

mkdir -p "$work/src/main/java"
printf '%s\n' "$java" > "$work/src/main/java/$class.java"
# A minimal project around README's lines; plugin versions pinned to ones this build already uses, so
# the build runs offline. build-classpath writes the runtime class path for the java command below.
cat > "$work/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>hello-iwarp</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
$xml
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.8.1</version>
        <executions>
          <execution>
            <phase>package</phase>
            <goals><goal>build-classpath</goal></goals>
            <configuration>
              <includeScope>runtime</includeScope>
              <outputFile>\${project.build.directory}/classpath.txt</outputFile>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
POM

echo "check-consumer: mvn -o -B package in $work ($class.java from README.md)" >&2
(cd "$work" && "$root/mvnw" -o -B -q package)
cp="$work/target/hello-iwarp-1.jar:$(cat "$work/target/classpath.txt")"
out="$(timeout 120 java -Dio.netty.leakDetection.level=PARANOID -cp "$cp" "$class" 2>&1)" || {
  printf '%s\n' "$out"; echo "check-consumer: FAILED: the program exited with an error" >&2; exit 1; }
printf '%s\n' "$out"

fail=0
for want in "RDMA_WRITE, SUCCESS, 12 octets" "RDMA_READ, SUCCESS, 12 octets" "SEND, SUCCESS, 12 octets" \
            "RECEIVE, SUCCESS, 12 octets"; do
  grep -qF "$want" <<<"$out" || { echo "check-consumer: missing: $want" >&2; fail=1; }
done
grep -qx "hello, iWARP" <<<"$out" || { echo "check-consumer: missing the line: hello, iWARP" >&2; fail=1; }
if grep -q "LEAK:" <<<"$out"; then echo "check-consumer: Netty reported a leak" >&2; fail=1; fi
[ "$fail" -eq 0 ] || { echo "check-consumer: FAILED" >&2; exit 1; }
echo "check-consumer: OK: a project with README's lines builds and runs against the installed artifacts" >&2
