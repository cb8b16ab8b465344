package org.iwarp4j.rdmap;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mpa, ddp and rdmap are named modules that export their API packages and nothing else; a module that
 * requires org.iwarp4j.rdmap compiles against the API (and, through requires transitive, Netty's
 * ByteBuf), cannot reach the internal packages, and runs on the module path.
 *
 * <p>The tests themselves run on the class path (surefire useModulePath=false), so this class builds the
 * module path from the class-path entries that are the modules in question.
 */
class ModuleDescriptorTest {

    private static Path locationOf(Class<?> type) throws Exception {
        return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static ModuleDescriptor descriptor(String name) throws Exception {
        ModuleFinder finder = ModuleFinder.of(locationOf(MpaSettings.class), locationOf(Access.class),
                locationOf(Rnic.class));
        return finder.find(name).orElseThrow(() -> new AssertionError("no module " + name)).descriptor();
    }

    /** Every exported package, unqualified ones mapped to an empty set of targets. */
    private static Map<String, Set<String>> exports(ModuleDescriptor module) {
        return module.exports().stream().collect(Collectors.toMap(ModuleDescriptor.Exports::source,
                ModuleDescriptor.Exports::targets));
    }

    private static Set<String> transitiveRequires(ModuleDescriptor module) {
        return module.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE))
                .map(ModuleDescriptor.Requires::name).collect(toSet());
    }

    @Test
    void mpaExportsItsApiAndItsInternalsOnlyToTheConformanceTools() throws Exception {
        ModuleDescriptor mpa = descriptor("org.iwarp4j.mpa");
        assertThat(mpa.isAutomatic()).isFalse();
        assertThat(mpa.packages()).contains("org.iwarp4j.mpa", "org.iwarp4j.mpa.internal");
        // The startup-frame codec goes to the conformance probe only (a qualified export), nowhere else;
        // PeerText to the two modules that print a peer's text.
        assertThat(exports(mpa)).isEqualTo(Map.of("org.iwarp4j.mpa", Set.of(),
                "org.iwarp4j.mpa.internal", Set.of("org.iwarp4j.conformance"),
                "org.iwarp4j.mpa.internal.text", Set.of("org.iwarp4j.conformance", "org.iwarp4j.tools")));
        assertThat(transitiveRequires(mpa)).contains("io.netty.buffer", "io.netty.transport", "io.netty.codec",
                "micrometer.core");
    }

    @Test
    void ddpExportsItsApi() throws Exception {
        ModuleDescriptor ddp = descriptor("org.iwarp4j.ddp");
        assertThat(exports(ddp)).isEqualTo(Map.of("org.iwarp4j.ddp", Set.of()));
        assertThat(transitiveRequires(ddp)).contains("org.iwarp4j.mpa");
    }

    @Test
    void rdmapExportsItsApiAndNotItsWireCodecs() throws Exception {
        ModuleDescriptor rdmap = descriptor("org.iwarp4j.rdmap");
        assertThat(rdmap.isAutomatic()).isFalse();
        assertThat(rdmap.packages()).contains("org.iwarp4j.rdmap", "org.iwarp4j.rdmap.internal.wire");
        // The wire codecs go to the capture decoder only (a qualified export), nowhere else.
        assertThat(exports(rdmap)).isEqualTo(Map.of("org.iwarp4j.rdmap", Set.of(),
                "org.iwarp4j.rdmap.internal.wire", Set.of("org.iwarp4j.conformance")));
        assertThat(transitiveRequires(rdmap)).contains("org.iwarp4j.ddp", "org.iwarp4j.mpa");
    }

    /** Our three modules and their runtime dependencies, as found on the test class path. */
    private static String modulePath() {
        List<String> entries = new ArrayList<>();
        for (String entry : ChildJvm.testClassPath().split(File.pathSeparator)) {
            Path path = Paths.get(entry);
            boolean ourModule = Files.isRegularFile(path.resolve("module-info.class"))
                    || path.getFileName().toString().matches("iwarp4j-(mpa|ddp|rdmap)-.*\\.jar");
            boolean dependency = entry.matches(".*/(io/netty|io/micrometer|org/hdrhistogram|org/latencyutils|"
                    + "org/slf4j)/.*\\.jar");
            if (ourModule || dependency) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String compile(Path sources, Path out, String modulePath) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> arguments = new ArrayList<>(List.of("--module-path", modulePath, "-d", out.toString()));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> arguments.add(f.toString()));
        }
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, arguments.toArray(String[]::new));
        return status == 0 ? "" : diagnostics.toString().isEmpty() ? "failed" : diagnostics.toString();
    }

    private static void write(Path file, String text) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    @Test
    void aModuleRequiringRdmapUsesTheApiAndRunsOnTheModulePath(@TempDir Path dir) throws Exception {
        String modulePath = modulePath();
        Path src = dir.resolve("src");
        write(src.resolve("module-info.java"), "module hello.consumer { requires org.iwarp4j.rdmap; }\n");
        write(src.resolve("hello/consumer/Main.java"), """
                package hello.consumer;

                import io.netty.buffer.ByteBuf;
                import io.netty.buffer.Unpooled;
                import java.util.EnumSet;
                import org.iwarp4j.ddp.Access;
                import org.iwarp4j.rdmap.MemoryRegion;
                import org.iwarp4j.rdmap.Rnic;
                import org.iwarp4j.rdmap.Transport;

                public class Main {
                    public static void main(String[] args) {
                        try (Rnic rnic = Rnic.builder().transport(Transport.NIO).build()) {
                            ByteBuf memory = Unpooled.directBuffer(16).writeZero(16);
                            MemoryRegion region = rnic.allocateProtectionDomain()
                                    .register(memory, EnumSet.of(Access.LOCAL_WRITE));
                            System.out.println("registered " + region.sge(0, 16).length() + " octets");
                            region.close();
                            memory.release();
                        }
                        System.out.println("Rnic is in module " + Rnic.class.getModule().getName());
                        System.out.println("we are in module " + Main.class.getModule().getName());
                    }
                }
                """);
        Path out = dir.resolve("out");
        assertThat(compile(src, out, modulePath)).isEmpty();

        ChildJvm.Result run = ChildJvm.run(List.of("--module-path", modulePath + File.pathSeparator + out,
                "-m", "hello.consumer/hello.consumer.Main"), 60);
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("registered 16 octets", "Rnic is in module org.iwarp4j.rdmap",
                "we are in module hello.consumer");
    }

    @Test
    void aModuleRequiringRdmapCannotReachItsInternalPackage(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        write(src.resolve("module-info.java"), "module hello.snoop { requires org.iwarp4j.rdmap; }\n");
        write(src.resolve("hello/snoop/Snoop.java"), """
                package hello.snoop;

                public class Snoop {
                    Object opcode = org.iwarp4j.rdmap.internal.wire.RdmapOpcode.values();
                }
                """);
        String errors = compile(src, dir.resolve("out"), modulePath());
        assertThat(errors).contains("package org.iwarp4j.rdmap.internal.wire is not visible");
    }
}
