package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The completion queue's polling: {@link CompletionQueue#poll()} answers an empty queue without its
 * lock (a counter kept beside it), so every way of taking a completion must keep that counter right.
 */
class CompletionQueueTest {

    private static WorkCompletion completion(long id) {
        return new WorkCompletion(id, WorkCompletionOpcode.SEND, WorkCompletionStatus.SUCCESS, 8, false, null, null,
                null);
    }

    @Test
    void pollTakesEveryCompletionInOrderWhicheverWayItIsTaken() throws InterruptedException {
        CompletionQueue cq = new CompletionQueue(4);
        assertThat(cq.poll()).isNull();
        for (long id = 1; id <= 4; id++) {
            assertThat(cq.complete(completion(id))).isTrue();
        }
        assertThat(cq.complete(completion(5))).as("overrun").isFalse();
        assertThat(cq.poll().workRequestId()).isEqualTo(1);
        assertThat(cq.poll(1, TimeUnit.SECONDS).workRequestId()).isEqualTo(2);
        assertThat(cq.take().workRequestId()).isEqualTo(3);
        assertThat(cq.poll().workRequestId()).isEqualTo(4);
        assertThat(cq.poll()).isNull();
        assertThat(cq.size()).isZero();
        // The overrun's completion was not counted: a new one is found, and nothing more.
        assertThat(cq.complete(completion(6))).isTrue();
        assertThat(cq.poll().workRequestId()).isEqualTo(6);
        assertThat(cq.poll()).isNull();
    }

    @Test
    void timedPollOfAnEmptyQueueComesBackEmpty() throws InterruptedException {
        CompletionQueue cq = new CompletionQueue(2);
        assertThat(cq.poll(1, TimeUnit.MILLISECONDS)).isNull();
        assertThat(cq.complete(completion(7))).isTrue();
        assertThat(cq.poll().workRequestId()).isEqualTo(7);
    }

    /** A busy poller on another thread sees a completion made after it started polling. */
    @Test
    void busyPollerOnAnotherThreadSeesTheCompletion() throws Exception {
        CompletionQueue cq = new CompletionQueue(2);
        CompletableFuture<Long> polled = CompletableFuture.supplyAsync(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                WorkCompletion c = cq.poll();
                if (c != null) {
                    return c.workRequestId();
                }
                Thread.onSpinWait();
            }
            return -1L;
        });
        assertThat(cq.complete(completion(9))).isTrue();
        assertThat(polled.get(20, TimeUnit.SECONDS)).isEqualTo(9);
        assertThat(cq.poll()).isNull();
    }
}
