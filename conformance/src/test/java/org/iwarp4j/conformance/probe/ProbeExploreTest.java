package org.iwarp4j.conformance.probe;

import java.time.Duration;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

class ProbeExploreTest {
    @Test
    void explore() throws Exception {
        try (OurListener our = new OurListener(MpaSettings.builder().startupTimeout(Duration.ofMillis(700)).build())) {
            ProbeReport report = Probe.builder(our.address()).timeout(Duration.ofSeconds(3))
                    .startupWait(Duration.ofSeconds(3)).build().run();
            System.out.print(report.toTable());
            System.out.print(report.toJson());
        }
    }
}
