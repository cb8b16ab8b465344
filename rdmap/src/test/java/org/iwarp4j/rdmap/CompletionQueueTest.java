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
                null, null);
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

    /**
     * Runs {@code waiter} on a thread of its own. The tests that count unparks need a waiter that
     * parks only when it has nothing: a pool thread (the common pool's) may carry a permit left by
     * the pool's own signalling, and with it its first park returns at once, it leaves the waiters'
     * queue and finds the completions itself if they came meanwhile: no unpark is counted.
     */
    private static <T> CompletableFuture<T> onNewThread(java.util.function.Supplier<T> waiter) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(waiter.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "cq-waiter");
        t.setDaemon(true);
        t.start();
        return result;
    }

    /** Waits (bounded, without sleeping) until {@code n} threads wait in {@code cq}. */
    private static void awaitWaiters(CompletionQueue cq, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (cq.waitingThreads() < n) {
            assertThat(System.nanoTime()).as("a waiter registers within 20 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /**
     * Completions made on an event loop wake the waiter when the loop's task is over, once for all
     * of them: five completions of one turn cost one unpark, and the woken thread finds all five.
     */
    @Test
    void completionsOfOneEventLoopTurnWakeTheWaiterOnce() throws Exception {
        CompletionQueue cq = new CompletionQueue(8);
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        try {
            CompletableFuture<java.util.List<Long>> taken = onNewThread(() -> {
                java.util.List<Long> ids = new java.util.ArrayList<>();
                try {
                    ids.add(cq.take().workRequestId());
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                for (WorkCompletion c; (c = cq.poll()) != null; ) {
                    ids.add(c.workRequestId());
                }
                return ids;
            });
            awaitWaiters(cq, 1);
            long wakeUpsInTurn = loop.submit(() -> {
                for (long id = 41; id <= 45; id++) {
                    assertThat(cq.complete(completion(id), loop)).isTrue();
                }
                return cq.wakeUps();
            }).get(20, TimeUnit.SECONDS);
            assertThat(wakeUpsInTurn).as("no unpark before the turn ends").isZero();
            assertThat(taken.get(20, TimeUnit.SECONDS)).containsExactly(41L, 42L, 43L, 44L, 45L);
            assertThat(cq.wakeUps()).as("one unpark for the turn's five completions").isEqualTo(1);
        } finally {
            loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
    }

    /** Two waiters and two completions in one event loop turn: both are woken, one each. */
    @Test
    void oneEventLoopTurnWakesAWaiterPerCompletion() throws Exception {
        CompletionQueue cq = new CompletionQueue(4);
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Callable<Long> waiter = () -> {
                WorkCompletion c = cq.poll(20, TimeUnit.SECONDS);
                return c == null ? -1 : c.workRequestId();
            };
            java.util.concurrent.Future<Long> a = pool.submit(waiter);
            java.util.concurrent.Future<Long> b = pool.submit(waiter);
            awaitWaiters(cq, 2);
            loop.submit(() -> {
                cq.complete(completion(51), loop);
                cq.complete(completion(52), loop);
            }).get(20, TimeUnit.SECONDS);
            assertThat(java.util.List.of(a.get(30, TimeUnit.SECONDS), b.get(30, TimeUnit.SECONDS)))
                    .containsExactlyInAnyOrder(51L, 52L);
        } finally {
            pool.shutdownNow();
            loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
    }

    /** Off an event loop (or on another thread than the given loop) the waiter is woken at once. */
    @Test
    void aCompletionOffTheLoopWakesAtOnce() throws Exception {
        CompletionQueue cq = new CompletionQueue(2);
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        try {
            CompletableFuture<Long> taken = onNewThread(() -> {
                try {
                    return cq.take().workRequestId();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitWaiters(cq, 1);
            assertThat(cq.complete(completion(61), loop)).isTrue(); // this thread is not the loop
            assertThat(cq.wakeUps()).isEqualTo(1);
            assertThat(taken.get(20, TimeUnit.SECONDS)).isEqualTo(61);
        } finally {
            loop.shutdownGracefully(0, 5, TimeUnit.SECONDS);
        }
    }
}
