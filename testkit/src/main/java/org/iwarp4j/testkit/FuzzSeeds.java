package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Seeds of a {@code *FuzzTarget} that the project's own encoders make (files named {@value #PREFIX}*):
 * a test builds them and calls {@link #check}, which fails if the committed files differ from what
 * the encoders make now, so a seed never silently stops meaning what its name says. With the system
 * property {@value #WRITE_PROPERTY} set to {@code true}, it writes them instead (after an encoder
 * changed, or for a new seed) and removes {@value #PREFIX}* files no longer made.
 */
public final class FuzzSeeds {

    /** The name every encoder-made seed starts with. */
    public static final String PREFIX = "enc-";

    /** Set to {@code true} to write the seeds rather than check them. */
    public static final String WRITE_PROPERTY = "iwarp4j.fuzz.writeSeeds";

    private FuzzSeeds() {
    }

    /**
     * The inputs directory of {@code target} below {@code moduleDir} (surefire's working directory):
     * {@code src/test/resources/<package>/<Class>Inputs/fuzz/}, where Jazzer replays from.
     */
    public static Path inputs(Path moduleDir, Class<?> target) {
        return moduleDir.resolve("src/test/resources").resolve(target.getPackageName().replace('.', '/'))
                .resolve(target.getSimpleName() + "Inputs").resolve("fuzz");
    }

    /**
     * Checks (or, with {@value #WRITE_PROPERTY}, writes) the seeds of {@code target}: {@code seeds}
     * maps a name without the prefix to the octets.
     */
    public static void check(Class<?> target, Map<String, byte[]> seeds) {
        check(inputs(Path.of(""), target), seeds, Boolean.getBoolean(WRITE_PROPERTY));
    }

    /** {@link #check(Class, Map)} on a directory, writing or checking as {@code write} says. */
    public static void check(Path dir, Map<String, byte[]> seeds, boolean write) {
        try {
            TreeSet<String> stale = existing(dir);
            for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
                String name = PREFIX + seed.getKey();
                stale.remove(name);
                Path file = dir.resolve(name);
                if (write) {
                    Files.createDirectories(dir);
                    Files.write(file, seed.getValue());
                } else if (!Files.isRegularFile(file) || !Arrays.equals(Files.readAllBytes(file), seed.getValue())) {
                    throw new AssertionError(file + " is not what the encoders make now: run this test with -D"
                            + WRITE_PROPERTY + "=true and commit the change");
                }
            }
            for (String name : stale) {
                if (write) {
                    Files.delete(dir.resolve(name));
                } else {
                    throw new AssertionError(dir.resolve(name) + " is no longer made: run this test with -D"
                            + WRITE_PROPERTY + "=true to remove it");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static TreeSet<String> existing(Path dir) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(PREFIX)).forEach(names::add);
            }
        }
        return names;
    }
}
