package org.iwarp4j.testkit;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs {@link LeakDetectionExtension}'s detector factory when the JUnit Platform starts.
 *
 * <p>The factory only takes effect if it is in place before Netty's buffer classes are initialized.
 * The Jupiter extension alone is created when the Jupiter engine starts, which is too late if
 * another engine (jqwik, which our modules use for properties) runs first and allocates buffers.
 * The Platform opens a launcher session before any engine discovers or runs anything, and finds
 * this listener through {@code META-INF/services} on the test classpath without any configuration.
 */
public final class LeakDetectionSessionListener implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        LeakDetectionExtension.install();
    }
}
