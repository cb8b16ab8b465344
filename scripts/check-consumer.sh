#!/usr/bin/env bash
# Checks iwarp4j as a stranger's project would use it: installs the artifacts into the local Maven
# repository (~/.m2), then builds and runs a throwaway project made of nothing but README.md's
# "Use it from your project" blocks (the ```xml dependency lines and the ```java program), the program
# run in a JVM of its own (JAVA_HOME's java when it is set) by a JUnit test under surefire: the throwaway
# build uses only plugins and libraries the main build resolved, so it runs offline (-o).
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
# A version the root pom.xml sets: pom_value NAME gives <NAME>'s value, pom_value resources the
# maven-resources-plugin's <version>.
pom_value() {
  if [ "$1" = resources ]; then
    sed -n '/<artifactId>maven-resources-plugin<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;}' pom.xml
  else
    sed -n "s/.*<$1>\\(.*\\)<\\/$1>.*/\\1/p" pom.xml | head -1
  fi
}

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

mkdir -p "$work/src/main/java" "$work/src/test/java"
printf '%s\n' "$java" > "$work/src/main/java/$class.java"
# The JDK of JAVA_HOME when it is set (as ./mvnw builds with it), else the java on PATH.
if [ -n "${JAVA_HOME:-}" ]; then java_cmd="$JAVA_HOME/bin/java"; else java_cmd="$(command -v java)"; fi
[ -x "$java_cmd" ] || { echo "check-consumer: no java (JAVA_HOME=${JAVA_HOME:-}, PATH)" >&2; exit 1; }
# README's program runs in a JVM of its own, started from a JUnit test under surefire, with the test
# class path (README's dependencies, junit) and Netty's leak detector at PARANOID; the test writes what
# it printed to target/program-output.txt. Only plugins and test libraries of the versions this build
# itself uses (the root pom.xml), so the offline build finds them all in a local repository that has
# built iwarp4j once.
cat > "$work/src/test/java/ReadmeProgramTest.java" <<JAVA
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class ReadmeProgramTest {
    @Test
    void runs() throws Exception {
        Path out = Path.of("target", "program-output.txt");
        Process p = new ProcessBuilder(List.of(System.getProperty("consumer.java"),
                "-Dio.netty.leakDetection.level=PARANOID", "-cp", System.getProperty("java.class.path"), "$class"))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            Assertions.fail("$class ran longer than 120 s:\n" + Files.readString(out));
        }
        Assertions.assertEquals(0, p.exitValue(), () -> "$class exited with an error");
    }
}
JAVA
# A minimal project around README's lines, with plugin and JUnit versions pinned to the ones this build
# uses (root pom.xml), so the build runs offline. No manifest-only jar: java.class.path is the class path.
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
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>$(pom_value resources)</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>$(pom_value compiler-plugin.version)</version></plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>$(pom_value surefire.version)</version>
        <configuration>
          <useManifestOnlyJar>false</useManifestOnlyJar>
          <systemPropertyVariables><consumer.java>$java_cmd</consumer.java></systemPropertyVariables>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
POM
# README's xml block is the whole <dependencyManagement> and <dependencies>: JUnit goes into the latter.
sed -i "s#^</dependencies>\$#  <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>$(pom_value junit.version)</version><scope>test</scope></dependency>\n</dependencies>#" "$work/pom.xml"
grep -q junit-jupiter "$work/pom.xml" || { echo "check-consumer: no </dependencies> line in README.md's xml block" >&2; exit 1; }

echo "check-consumer: mvn -o -B test in $work ($class.java from README.md, run by a JUnit test on $java_cmd)" >&2
if ! (cd "$work" && "$root/mvnw" -o -B -q test); then
  [ ! -f "$work/target/program-output.txt" ] || cat "$work/target/program-output.txt"
  echo "check-consumer: FAILED: the throwaway project did not build, or the program failed (above)" >&2; exit 1
fi
out="$(cat "$work/target/program-output.txt")"
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
