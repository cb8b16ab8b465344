package org.iwarp4j.oncrpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogRateLimitTest {

    private final AtomicLong clock = new AtomicLong(-7);

    @Test
    void theBurstOfAnIntervalIsLoggedAndWhatWasHeldBackIsReportedWithTheNextMessage() {
        LogRateLimit limit = new LogRateLimit(2, 60, TimeUnit.SECONDS, clock::get);
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).as("third in the interval").isEqualTo(-1);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(60) - 1);
        assertThat(limit.admit()).as("the interval's last nanosecond").isEqualTo(-1);
        clock.incrementAndGet();
        assertThat(limit.admit()).as("next interval: the two held back are reported").isEqualTo(2);
        assertThat(limit.admit()).isZero();
        assertThat(limit.admit()).isEqualTo(-1);
        assertThat(limit.heldTotal()).isEqualTo(3);
    }

    @Test
    void aBurstAndAnIntervalMustBePositive() {
        assertThatThrownBy(() -> new LogRateLimit(0, 5, TimeUnit.SECONDS, clock::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LogRateLimit(1, 0, TimeUnit.SECONDS, clock::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
