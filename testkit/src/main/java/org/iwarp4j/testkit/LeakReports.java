package org.iwarp4j.testkit;

import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the leaks Netty's detectors report, so a test can fail on them.
 *
 * <p>Netty only logs a leak, and a log line does not fail a build; this listener keeps the report
 * until {@link LeakDetectionExtension} drains it after the test. Reports arrive on whichever thread
 * happened to allocate a buffer when the detector noticed the collected one, hence the locking.
 */
final class LeakReports implements ResourceLeakDetector.LeakListener {

    static final LeakReports INSTANCE = new LeakReports();

    private final List<String> reports = new ArrayList<>();

    private LeakReports() {
    }

    @Override
    public synchronized void onLeak(String resourceType, String records) {
        reports.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                + (records.isEmpty() ? " (no access records)" : records));
    }

    /** Returns the reports collected so far and forgets them. */
    synchronized List<String> drain() {
        List<String> drained = List.copyOf(reports);
        reports.clear();
        return drained;
    }
}
