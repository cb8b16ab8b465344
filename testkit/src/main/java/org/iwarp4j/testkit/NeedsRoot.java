package org.iwarp4j.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Runs the annotated test class or method only when the JVM runs as root ({@link Root#isRoot()}),
 * and otherwise skips it with the reason: for tests that give files to other users (chown) or
 * check that the server gave a new file to its creator, which fail with "Operation not permitted"
 * as any other user. CI runs as root, so there they run (docs/testing.md lists them).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@EnabledIf(value = "org.iwarp4j.testkit.Root#isRoot",
        disabledReason = "needs root: the test or the server under test gives files to other users (chown), "
                + "which only root may do; run as root, as CI does (docs/testing.md)")
public @interface NeedsRoot {
}
