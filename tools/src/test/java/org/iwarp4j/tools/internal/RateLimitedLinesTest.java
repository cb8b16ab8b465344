package org.iwarp4j.tools.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimitedLinesTest {

    private static final long WAIT_SECONDS = 30;

    /** A ticker: time passes only when the test says so. */
    private final AtomicLong clock = new AtomicLong(-11);
    private final List<String> written = new CopyOnWriteArrayList<>();

    private RateLimitedLines lines(int burst, int queued) {
        return new RateLimitedLines(written::add, "test-lines", burst, 5, TimeUnit.SECONDS, clock::get, queued);
    }

    @Test
    void theBurstIsWrittenAndTheCountOfTheRestPrecedesTheNextLineLetThrough() throws Exception {
        try (RateLimitedLines lines = lines(2, RateLimitedLines.QUEUED_LINES)) {
            for (int i = 1; i <= 5; i++) {
                lines.print("rejecting " + i);
            }
            assertThat(lines.awaitWritten(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(written).containsExactly("rejecting 1", "rejecting 2");

            clock.addAndGet(TimeUnit.SECONDS.toNanos(5) - 1);
            lines.print("rejecting 6");
            clock.incrementAndGet();
            lines.print("rejecting 7");
            lines.print("rejecting 8");
            lines.print("rejecting 9");
            assertThat(lines.awaitWritten(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(written).containsExactly("rejecting 1", "rejecting 2",
                    "... suppressed 4 similar lines", "rejecting 7", "rejecting 8");
        }
        // "rejecting 9", held back: its count is written when the lines end.
        assertThat(written).endsWith("rejecting 8", "... suppressed 1 similar line");
    }

    @Test
    void closeWithNothingHeldBackWritesNothingMore() throws Exception {
        RateLimitedLines lines = lines(2, RateLimitedLines.QUEUED_LINES);
        lines.print("one");
        lines.close();
        lines.print("after close");
        assertThat(written).containsExactly("one");
    }

    /**
     * A writer that blocks (a paused terminal) holds neither the caller nor more than the queue:
     * what does not fit is counted and the count written once the writer goes on.
     */
    @Test
    void aBlockedWriterNeverHoldsTheCallerAndWhatDoesNotFitIsCounted() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        RateLimitedLines lines = new RateLimitedLines(line -> {
            writing.countDown();
            try {
                // The writer thread stands for stdout blocked here; the test's own waits are bounded.
                if (!goOn.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            written.add(line);
        }, "test-lines", 100, 5, TimeUnit.SECONDS, clock::get, 4);
        try (lines) {
            lines.print("first");
            assertThat(writing.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            // The writer is blocked in "first": four lines fit the queue, six do not.
            for (int i = 1; i <= 10; i++) {
                lines.print("line " + i);
            }
            assertThat(written).isEmpty();
            assertThat(lines.awaitWritten(0, TimeUnit.SECONDS)).as("the writer is still blocked").isFalse();
            goOn.countDown();
            assertThat(lines.awaitWritten(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            lines.print("after");
            assertThat(lines.awaitWritten(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(written).containsExactly("first", "line 1", "line 2", "line 3", "line 4",
                "... suppressed 6 similar lines", "after");
    }

    @Test
    void theQueueMustHoldASummaryAndALine() {
        assertThatThrownBy(() -> lines(1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
