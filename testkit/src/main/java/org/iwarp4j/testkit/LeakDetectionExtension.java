package org.iwarp4j.testkit;

import io.netty.buffer.ByteBufUtil;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test when a Netty buffer it allocated was never released.
 *
 * <p>A leaked buffer is invisible to the code under test and Netty only logs it, so without this a
 * missing {@code release()} passes every test and surfaces as memory growth in production. This
 * extension runs Netty's detector at {@link ResourceLeakDetector.Level#PARANOID} (every buffer
 * tracked), collects its reports, and after each test forces the detection (see {@link LeakSweep})
 * and throws an {@link AssertionError} carrying Netty's access records if anything leaked. It checks
 * again after all tests of a class, which fails the class for a leak in {@code @AfterAll} code; a
 * leak in {@code @BeforeAll} code fails the class's first test, whose report says it came from
 * class-level code.
 *
 * <p>Registered for automatic use through {@code META-INF/services}; a module turns that on with
 * {@code junit.jupiter.extensions.autodetection.enabled=true} in its
 * {@code src/test/resources/junit-platform.properties}.
 *
 * <p>Limits worth knowing:
 * <ul>
 *   <li>Only garbage can be detected: a buffer still referenced after the test (a static field, a
 *       running event loop) is not reported. Shut event loops down inside the test.</li>
 *   <li>A leak is noticed when the collector finds it, which is normally within the sweep after
 *       the test, but can be a later test; the report then says which test allocated it.</li>
 *   <li>That attribution, reporting the same leaking code path in more than one test, and
 *       skipping the garbage collections after clean tests need this extension's detector factory
 *       to be installed before Netty creates its buffer detector (a static initializer).
 *       {@link LeakDetectionSessionListener} does that when the JUnit Platform starts, before any
 *       engine runs. If Netty buffers were touched earlier still, leaks still fail tests, but
 *       without attribution, with a full sweep after every test, and Netty reports a given record
 *       text only once per JVM.</li>
 *   <li>Tests are assumed to run one at a time (JUnit's default); with concurrent execution a
 *       leak fails whichever test sweeps first.</li>
 * </ul>
 */
public final class LeakDetectionExtension
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LeakDetectionExtension.class);
    private static final String PREVIOUS_ATTRIBUTION = "previousAttribution";

    private static boolean installed;

    /** Installs the detection, if {@link LeakDetectionSessionListener} has not done so already. */
    public LeakDetectionExtension() {
        install();
    }

    static synchronized void install() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        if (installed) {
            return;
        }
        // Order matters: the factory must be in place before anything loads Netty's buffer classes,
        // and ByteBufUtil.setLeakListener loads them. The listener covers a detector created earlier.
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new AttributingLeakDetectorFactory());
        ByteBufUtil.setLeakListener(LeakReports.INSTANCE);
        installed = true;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        attributeTo(context, context.getRequiredTestClass().getName() + " (class-level code)");
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        attributeTo(context, context.getRequiredTestClass().getName() + "#"
                + context.getRequiredTestMethod().getName() + " [" + context.getDisplayName() + "]");
    }

    @Override
    public void afterEach(ExtensionContext context) {
        failOnLeaks(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        failOnLeaks(context);
    }

    private static void attributeTo(ExtensionContext context, String name) {
        install();
        String previous = AttributingLeakDetectorFactory.attributeAllocationsTo(name);
        context.getStore(NAMESPACE).put(PREVIOUS_ATTRIBUTION, previous);
    }

    private static void failOnLeaks(ExtensionContext context) {
        List<String> leaks = LeakSweep.run();
        String previous = context.getStore(NAMESPACE).remove(PREVIOUS_ATTRIBUTION, String.class);
        if (previous != null) {
            AttributingLeakDetectorFactory.attributeAllocationsTo(previous);
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty resource leak(s) detected after "
                    + context.getDisplayName() + ":\n" + String.join("\n", leaks));
        }
    }
}
