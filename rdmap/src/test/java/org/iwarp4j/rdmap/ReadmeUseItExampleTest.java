package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * README.md's "Use it from your project" section: its java block compiles exactly as printed and
 * runs, and its xml block names this build's BOM and rdmap artifact at this build's version.
 * (scripts/check-consumer.sh runs the same two blocks as a separate Maven project.)
 */
class ReadmeUseItExampleTest {

    private static final String HEADING = "## Use it from your project";

    /** The checkout's root: the nearest ancestor of the working directory with pom.xml and README.md. */
    private static Path checkoutRoot() {
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir;
            }
        }
        throw new AssertionError("no pom.xml with a README.md above " + Paths.get("").toAbsolutePath());
    }

    private static String section() throws Exception {
        String readme = Files.readString(checkoutRoot().resolve("README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("\n" + HEADING + "\n");
        assertThat(start).as("README.md has the heading %s", HEADING).isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        return end < 0 ? readme.substring(start) : readme.substring(start, end);
    }

    /** The one fenced block of that language in the section. */
    private static String block(String language) throws Exception {
        Matcher m = Pattern.compile("\n```" + language + "\n(.*?)\n```\n", Pattern.DOTALL).matcher(section());
        assertThat(m.find()).as("a ```%s block under %s", language, HEADING).isTrue();
        String block = m.group(1) + "\n";
        assertThat(m.find()).as("only one ```%s block under %s", language, HEADING).isFalse();
        return block;
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static String child(Element element, String name) {
        NodeList nodes = element.getElementsByTagName(name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().trim();
    }

    /** The {@code <version>} that is a direct child of {@code <project>}. */
    private static String ownVersion(Document pom) {
        NodeList children = pom.getDocumentElement().getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals("version")) {
                return e.getTextContent().trim();
            }
        }
        throw new AssertionError("a pom without its own <version>");
    }

    @Test
    void theDependencyLinesNameThisBuildsBomAndRdmap() throws Exception {
        String version = ownVersion(parse(Files.readString(checkoutRoot().resolve("pom.xml"))));
        String bomVersion = ownVersion(parse(Files.readString(checkoutRoot().resolve("bom/pom.xml"))));
        assertThat(bomVersion).as("bom/pom.xml's version").isEqualTo(version);

        Element readme = parse("<project>" + block("xml") + "</project>").getDocumentElement();
        Element imported = (Element) ((Element) readme.getElementsByTagName("dependencyManagement").item(0))
                .getElementsByTagName("dependency").item(0);
        assertThat(child(imported, "groupId")).isEqualTo("org.iwarp4j");
        assertThat(child(imported, "artifactId")).isEqualTo("iwarp4j-bom");
        assertThat(child(imported, "version")).isEqualTo(version);
        assertThat(child(imported, "type")).isEqualTo("pom");
        assertThat(child(imported, "scope")).isEqualTo("import");

        NodeList dependencies = readme.getElementsByTagName("dependencies");
        Element direct = (Element) ((Element) dependencies.item(dependencies.getLength() - 1))
                .getElementsByTagName("dependency").item(0);
        assertThat(child(direct, "groupId")).isEqualTo("org.iwarp4j");
        assertThat(child(direct, "artifactId")).isEqualTo("iwarp4j-rdmap");
        assertThat(child(direct, "version")).as("the BOM gives the version").isNull();
    }

    @Test
    void theProgramCompilesAsPrintedAndRuns(@TempDir Path dir) throws Exception {
        String program = block("java");
        Matcher name = Pattern.compile("public class (\\w+)").matcher(program);
        assertThat(name.find()).as("a public class in the README's program").isTrue();
        Path source = dir.resolve(name.group(1) + ".java");
        Files.writeString(source, program, StandardCharsets.UTF_8);

        Path classes = dir.resolve("classes");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-Xlint:all", "-Werror",
                "-cp", ChildJvm.testClassPath(), "-d", classes.toString(), source.toString());
        assertThat(status).as("javac: %s", diagnostics).isZero();

        List<String> java = new ArrayList<>(List.of("-Dio.netty.leakDetection.level=PARANOID",
                "-cp", classes + File.pathSeparator + ChildJvm.testClassPath(), name.group(1)));
        ChildJvm.Result run = ChildJvm.run(java, 60);

        assertThat(run.exitCode()).as(run.output()).isZero();
        List<String> lines = run.output().lines().filter(l -> !l.startsWith("[")).toList();
        assertThat(run.output()).contains("RDMA_WRITE, SUCCESS, 12 octets", "RDMA_READ, SUCCESS, 12 octets",
                "SEND, SUCCESS, 12 octets", "RECEIVE, SUCCESS, 12 octets").doesNotContain("LEAK:");
        assertThat(lines).contains("hello, iWARP");
    }
}
