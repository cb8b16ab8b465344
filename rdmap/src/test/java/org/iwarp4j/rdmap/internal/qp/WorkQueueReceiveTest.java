package org.iwarp4j.rdmap.internal.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkQueue#postReceives}: a receive posted on the engine's event loop is posted at once,
 * without a command, unless a receive from another thread still waits in the queue; receives keep
 * their posting order either way (RFC 5040 §5.3, RDMAP-R-020), and one the engine would complete
 * at once goes through the queue. The engine is a recording stand-in on a real event loop.
 */
class WorkQueueReceiveTest {

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final WorkQueue queue = new WorkQueue();
    /** What the stand-in engine saw, in order: "now:ID" (posted without a command), "cmd:ID", "drained". */
    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** The ids the stand-in refuses in {@code postReceiveNow}, as an engine does an invalid receive. */
    private final List<Long> refusedNow = new CopyOnWriteArrayList<>();
    /** The id the stand-in throws on in {@code postReceiveNow}, as an engine can on a bad request. */
    private volatile long throwsNow = -1;
    /** What {@code postReceives} reported as not posted. */
    private final List<Integer> notPosted = new CopyOnWriteArrayList<>();

    private final WorkCommand.Handler engine = new RecordingHandler(seen) {
        @Override
        public boolean postReceiveNow(ReceiveWorkRequest request) {
            if (refusedNow.contains(request.id())) {
                return false;
            }
            if (request.id() == throwsNow) {
                throw new IllegalArgumentException("bad receive " + request.id());
            }
            seen.add("now:" + request.id());
            return true;
        }
    };

    @AfterEach
    void shutDown() throws Exception {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    }

    private static ReceiveWorkRequest[] receives(long... ids) {
        ReceiveWorkRequest[] r = new ReceiveWorkRequest[ids.length];
        for (int i = 0; i < ids.length; i++) {
            r[i] = new ReceiveWorkRequest(ids[i]);
        }
        return r;
    }

    private void bind() throws Exception {
        loop.submit(() -> queue.bind(loop, engine, engine)).get(10, TimeUnit.SECONDS);
    }

    /** Runs {@code task} on the loop, then a later task, so that a drain the task scheduled has run. */
    private void onLoop(Runnable task) throws Exception {
        loop.submit(task).get(10, TimeUnit.SECONDS);
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
    }

    @Test
    void receivesPostedOnTheLoopArePostedBeforeThePostReturnsWithoutACommand() throws Exception {
        bind();
        List<List<String>> atReturn = new CopyOnWriteArrayList<>();
        onLoop(() -> {
            queue.postReceives(receives(1), notPosted::add);
            atReturn.add(List.copyOf(seen));
            queue.postReceives(receives(2, 3), notPosted::add);
            atReturn.add(List.copyOf(seen));
        });
        assertThat(atReturn).containsExactly(List.of("now:1"), List.of("now:1", "now:2", "now:3"));
        assertThat(seen).as("no drain: nothing was queued").containsExactly("now:1", "now:2", "now:3");
    }

    /**
     * Runs {@code posts} on this thread while a task holds the loop, so that no drain the posts
     * schedule can run between them, then lets the loop go and waits for the drain.
     */
    private void whileTheLoopIsBusy(Runnable posts) throws Exception {
        CountDownLatch loopBusy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        var blocker = loop.submit(() -> {
            loopBusy.countDown();
            try {
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(loopBusy.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            posts.run();
        } finally {
            release.countDown();
        }
        blocker.get(10, TimeUnit.SECONDS);
        onLoop(() -> { });
    }

    @Test
    void receivesPostedOffTheLoopAreQueuedAndDrainedInOrder() throws Exception {
        bind();
        // both posts land before the loop turns: one drain takes all three, in posting order
        whileTheLoopIsBusy(() -> {
            queue.postReceives(receives(1, 2), notPosted::add);
            queue.postReceives(receives(3), notPosted::add);
        });
        assertThat(seen).containsExactly("cmd:1", "cmd:2", "cmd:3", "drained");
    }

    @Test
    void receivesPostedOffTheLoopWhileTheLoopRunsKeepTheirOrderAcrossDrains() throws Exception {
        bind();
        // without holding the loop a drain may run between the posts: the order holds either way
        queue.postReceives(receives(1, 2), notPosted::add);
        queue.postReceives(receives(3), notPosted::add);
        onLoop(() -> { });
        assertThat(seen).filteredOn(e -> e.startsWith("cmd:")).containsExactly("cmd:1", "cmd:2", "cmd:3");
        assertThat(seen).last().isEqualTo("drained");
        assertThat(notPosted).isEmpty();
    }

    @Test
    void aReceivePostedOnTheLoopQueuesBehindOneStillQueuedFromAnotherThread() throws Exception {
        bind();
        CountDownLatch loopBusy = new CountDownLatch(1);
        CountDownLatch posted = new CountDownLatch(1);
        List<String> atReturn = new CopyOnWriteArrayList<>();
        var blocker = loop.submit(() -> {
            loopBusy.countDown();
            try {
                assertThat(posted.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            // 1 is queued, its drain waits behind this task: 2 must not overtake it
            queue.postReceives(receives(2), notPosted::add);
            atReturn.addAll(seen);
        });
        assertThat(loopBusy.await(10, TimeUnit.SECONDS)).isTrue();
        queue.postReceives(receives(1), notPosted::add);
        posted.countDown();
        blocker.get(10, TimeUnit.SECONDS);
        onLoop(() -> { });
        assertThat(atReturn).as("nothing ran ahead of the queued receive").isEmpty();
        assertThat(seen).containsExactly("cmd:1", "cmd:2", "drained");

        // the queue is empty again: the next receive on the loop is posted at once
        seen.clear();
        onLoop(() -> queue.postReceives(receives(3), notPosted::add));
        assertThat(seen).containsExactly("now:3");
    }

    @Test
    void aReceiveTheEngineWouldCompleteAtOnceIsQueuedAndTheRestQueueBehindIt() throws Exception {
        bind();
        refusedNow.add(2L);
        onLoop(() -> queue.postReceives(receives(1, 2, 3), notPosted::add));
        onLoop(() -> queue.postReceives(receives(4), notPosted::add));
        assertThat(seen).containsExactly("now:1", "cmd:2", "cmd:3", "drained", "now:4");
    }

    @Test
    void sendWorkQueuedAheadDoesNotHoldBackAReceivePostedOnTheLoop() throws Exception {
        bind();
        onLoop(() -> {
            queue.enqueue(new WorkCommand.PostSend(SendWorkRequest.send(7)));
            queue.postReceives(receives(1), notPosted::add);
        });
        // a receive there sooner only helps the peer's Sends; Sends keep their own order
        assertThat(seen).containsExactly("now:1", "send:7", "drained");
    }

    @Test
    void beforeAnEngineIsBoundReceivesWaitInTheQueueAndLaterOnesOnTheLoopQueueBehindThem() throws Exception {
        queue.postReceives(receives(1), notPosted::add);
        List<String> atReturn = new CopyOnWriteArrayList<>();
        loop.submit(() -> {
            queue.bind(loop, engine, engine); // schedules the drain of 1 for a later task
            queue.postReceives(receives(2), notPosted::add);
            atReturn.addAll(seen);
        }).get(10, TimeUnit.SECONDS);
        onLoop(() -> { });
        assertThat(atReturn).isEmpty();
        assertThat(seen).containsExactly("cmd:1", "cmd:2", "drained");
    }

    @Test
    void receivesTakenOffTheQueueByAFlushNoLongerHoldBackPostsOnTheLoop() throws Exception {
        bind();
        CountDownLatch release = new CountDownLatch(1);
        var blocker = loop.submit(() -> {
            try {
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            // as Terminator.failAll does: take every command off, on the loop
            for (WorkCommand c; (c = queue.poll()) != null; ) {
                seen.add("flushed:" + ((WorkCommand.PostReceive) c).request().id());
            }
            queue.postReceives(receives(3), notPosted::add);
        });
        queue.postReceives(receives(1, 2), notPosted::add);
        release.countDown();
        blocker.get(10, TimeUnit.SECONDS);
        onLoop(() -> { });
        assertThat(seen).containsExactly("flushed:1", "flushed:2", "now:3", "drained");
    }

    @Test
    void aReceivePostedOnTheLoopQueuesBehindAnAbortOrCloseAskedForBeforeIt() throws Exception {
        bind();
        onLoop(() -> {
            queue.enqueue(new WorkCommand.Abort());
            queue.postReceives(receives(1), notPosted::add);
        });
        // the receive reaches the engine after the abort, which flushes it, not before
        assertThat(seen).containsExactly("abort", "cmd:1", "drained");

        seen.clear();
        onLoop(() -> {
            queue.enqueue(new WorkCommand.CloseGracefully());
            queue.postReceives(receives(2), notPosted::add);
        });
        assertThat(seen).containsExactly("close", "cmd:2", "drained");

        // taken off the queue, they hold nothing back any more
        seen.clear();
        onLoop(() -> queue.postReceives(receives(3), notPosted::add));
        assertThat(seen).containsExactly("now:3");
        assertThat(notPosted).isEmpty();
    }

    @Test
    void whenPostingAtOnceThrowsTheEarlierStayPostedTheRestAreReportedAndNothingIsLeftCounted() throws Exception {
        bind();
        throwsNow = 2;
        List<Throwable> thrown = new CopyOnWriteArrayList<>();
        onLoop(() -> {
            try {
                queue.postReceives(receives(1, 2, 3), notPosted::add);
            } catch (IllegalArgumentException e) {
                thrown.add(e);
            }
        });
        assertThat(thrown).hasSize(1);
        assertThat(notPosted).as("2 and 3 were not posted").containsExactly(2);
        assertThat(seen).as("nothing queued for 2 or 3").containsExactly("now:1");

        // no count was left raised: the next receive on the loop is posted at once
        onLoop(() -> queue.postReceives(receives(4), notPosted::add));
        assertThat(seen).containsExactly("now:1", "now:4");
    }
}
