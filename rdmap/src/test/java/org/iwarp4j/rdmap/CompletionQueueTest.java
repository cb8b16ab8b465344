package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The completion queue's polling and waiting, which use no lock: {@link CompletionQueue#poll()}
 * answers an empty queue from a counter, and a waiting thread is woken by the completing one with
 * an unpark; every way of taking a completion must keep the counter right and no waiter may be
 * left asleep while a completion waits.
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

    @Test
    void aWaitingTakeIsWokenByTheCompletion() throws Exception {
        CompletionQueue cq = new CompletionQueue(2);
        CompletableFuture<Long> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return cq.take().workRequestId();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(cq.complete(completion(11))).isTrue();
        assertThat(taken.get(20, TimeUnit.SECONDS)).isEqualTo(11);
        assertThat(cq.size()).isZero();
    }

    /** Two threads waiting, two completions: both wake with one each, whatever the interleaving. */
    @Test
    void twoWaitersTwoCompletions() throws Exception {
        CompletionQueue cq = new CompletionQueue(4);
        java.util.concurrent.Callable<Long> waiter = () -> {
            WorkCompletion c = cq.poll(20, TimeUnit.SECONDS);
            return c == null ? -1 : c.workRequestId();
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<Long> a = pool.submit(waiter);
            java.util.concurrent.Future<Long> b = pool.submit(waiter);
            assertThat(cq.complete(completion(21))).isTrue();
            assertThat(cq.complete(completion(22))).isTrue();
            assertThat(java.util.List.of(a.get(30, TimeUnit.SECONDS), b.get(30, TimeUnit.SECONDS)))
                    .containsExactlyInAnyOrder(21L, 22L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anInterruptedWaitThrowsAndLeavesTheQueueUsable() throws Exception {
        CompletionQueue cq = new CompletionQueue(2);
        Thread.currentThread().interrupt();
        org.assertj.core.api.Assertions.assertThatThrownBy(cq::take).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(cq.complete(completion(31))).isTrue();
        assertThat(cq.take().workRequestId()).isEqualTo(31);
    }
}
