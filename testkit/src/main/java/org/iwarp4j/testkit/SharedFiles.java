package org.iwarp4j.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Locates the project's shared, read-only wire captures ({@code pcaps/}). (The known-answer
 * vectors are the repository's own, in {@code testdata/vectors}: see {@link TestVectors} and
 * {@link TestData#vector}.)
 *
 * <p>The directory lives beside the Maven project, not inside it, so it is found in two ways:
 * the system property {@value #PROPERTY}, which surefire sets to
 * {@code ${maven.multiModuleProjectDirectory}/../shared}; and, when that is unset or names no
 * directory (an IDE run, or {@code mvn} started inside a module, where Maven's project directory
 * is the module itself), by walking up from the working directory to the first ancestor that has
 * a {@code shared/pcaps} directory.
 */
public final class SharedFiles {

    /** System property naming the shared directory. */
    public static final String PROPERTY = "iwarp4j.shared.dir";

    private SharedFiles() {
    }

    /** The shared directory itself. */
    public static Path root() {
        return locate(System.getProperty(PROPERTY), Paths.get("").toAbsolutePath());
    }

    /** A capture in {@code shared/pcaps}, e.g. {@code pcap("rping-siw.pcap")}. */
    public static Path pcap(String name) {
        return existing(root().resolve("pcaps").resolve(name));
    }

    static Path locate(String propertyValue, Path workingDirectory) {
        if (propertyValue != null && Files.isDirectory(Paths.get(propertyValue))) {
            return Paths.get(propertyValue).toAbsolutePath().normalize();
        }
        for (Path dir = workingDirectory; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared");
            if (Files.isDirectory(candidate.resolve("pcaps"))) {
                return candidate.normalize();
            }
        }
        throw new IllegalStateException("shared directory not found: -D" + PROPERTY + "="
                + propertyValue + " is not a directory, and no ancestor of " + workingDirectory
                + " has a shared/pcaps directory");
    }

    private static Path existing(Path file) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("no such shared file: " + file);
        }
        return file;
    }
}
