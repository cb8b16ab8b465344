package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

/**
 * Latency statistics from HdrHistogram: perftest's one-way figures (half the round trip) within the
 * histogram's 3 significant digits, the percentiles, and {@code -H}'s distribution.
 */
class LatencyResultTest {

    @Test
    void figuresAreHalfTheRoundTripsWithinAThousandth() {
        long[] rtt = new long[1000];
        for (int i = 0; i < rtt.length; i++) {
            rtt[i] = 10_000 + i * 100L; // 10 us .. 109.9 us round trips
        }
        LatencyResult r = LatencyResult.ofRoundTrips(64, rtt, rtt.length);
        Percentage close = Percentage.withPercentage(0.1);
        assertThat(r.iterations()).isEqualTo(1000);
        assertThat(r.min()).isCloseTo(5.0, close);
        assertThat(r.max()).isCloseTo(54.95, close);
        assertThat(r.typical()).isCloseTo(29.95, close); // the median: the 500th of 1000
        assertThat(r.average()).isCloseTo(29.975, close);
        assertThat(r.p99()).isCloseTo(54.45, close);
        assertThat(r.p999()).isCloseTo(54.9, close);
        assertThat(r.percentile(90)).isCloseTo(49.95, close);
        assertThat(r.stdev()).isCloseTo(14.43, Percentage.withPercentage(1));
        assertThat(r.distribution()).contains("Value").contains("Percentile").contains("#[Max     =");
    }

    @Test
    void noRoundTripsIsNoResult() {
        assertThatThrownBy(() -> LatencyResult.ofRoundTrips(8, new long[0], 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
