package org.iwarp4j.rdmap.internal.qp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogRateLimitTest {

    private final AtomicLong clock = new AtomicLong(1_000);
    private final LogRateLimit limit = new LogRateLimit(3, 5, TimeUnit.SECONDS, clock::get);

    @Test
    void aBurstPerIntervalIsLoggedAndTheRestCountedIntoTheNextMessage() {
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).as("fourth in the interval").isEqualTo(-1);
        assertThat(limit.admit()).isEqualTo(-1);

        clock.addAndGet(TimeUnit.SECONDS.toNanos(5) - 1);
        assertThat(limit.admit()).as("still the same interval").isEqualTo(-1);
        clock.incrementAndGet();
        assertThat(limit.admit()).as("a new interval: the three suppressed are reported").isEqualTo(3);
        assertThat(limit.admit()).isZero();
        assertThat(limit.suppressedTotal()).isEqualTo(3);
    }

    @Test
    void nonPositiveLimitsAreRefused() {
        assertThatThrownBy(() -> new LogRateLimit(0, 1, TimeUnit.SECONDS, clock::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogRateLimit(1, 0, TimeUnit.SECONDS, clock::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
