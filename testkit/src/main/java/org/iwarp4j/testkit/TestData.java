package org.iwarp4j.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Locates the repository's own test data, {@code testdata/} at the top of the checkout: wire
 * captures recorded with the project's Linux siw VM ({@code captures/}, see its README for how each
 * was made) and the RFCs' known-answer vectors ({@code vectors/}).
 *
 * <p>Found in two ways: the system property {@value #PROPERTY}, which surefire sets to
 * {@code ${maven.multiModuleProjectDirectory}/testdata}; and, when that is unset or names no
 * directory (an IDE run, or {@code mvn} started inside a module), by walking up from the working
 * directory to the first ancestor that has a {@code testdata/captures} directory. Nothing outside
 * the checkout is ever read.
 */
public final class TestData {

    /** System property naming the test-data directory. */
    public static final String PROPERTY = "iwarp4j.testdata.dir";

    private TestData() {
    }

    /** The test-data directory itself. */
    public static Path root() {
        return locate(System.getProperty(PROPERTY), Paths.get("").toAbsolutePath());
    }

    /** A capture in {@code testdata/captures}, e.g. {@code capture("rping-siw.pcap")}. */
    public static Path capture(String name) {
        return existing(root().resolve("captures").resolve(name));
    }

    /** A file in {@code testdata/vectors}, e.g. {@code vector("marker-stream.hex")}. */
    public static Path vector(String name) {
        return existing(root().resolve("vectors").resolve(name));
    }

    static Path locate(String propertyValue, Path workingDirectory) {
        if (propertyValue != null && Files.isDirectory(Paths.get(propertyValue))) {
            return Paths.get(propertyValue).toAbsolutePath().normalize();
        }
        for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("testdata");
            if (Files.isDirectory(candidate.resolve("captures"))) {
                return candidate.normalize();
            }
        }
        throw new IllegalStateException("test data not found: -D" + PROPERTY + "=" + propertyValue
                + " is not a directory, and no ancestor of " + workingDirectory
                + " has a testdata/captures directory");
    }

    private static Path existing(Path file) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("no such test-data file: " + file);
        }
        return file;
    }
}
