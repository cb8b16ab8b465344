package org.iwarp4j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this JVM runs as root, the condition of {@link NeedsRoot}: only root may give a file to
 * another user (chown), and a server running as root makes the files a client creates that
 * client's, so the tests of file ownership need it.
 */
public final class Root {

    private static final boolean ROOT = effectiveUidIsZero();

    private Root() {
    }

    /** Whether the effective user of this JVM is root (uid 0). */
    public static boolean isRoot() {
        return ROOT;
    }

    /** The owner of {@code /proc/self} is the process's effective user; else {@code user.name}. */
    private static boolean effectiveUidIsZero() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
