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
 * {@link WorkQueue}'s drain on the event loop: a command that throws (a bug of the stack's: a post
 * refuses what the engine cannot take) is handed to {@link WorkCommand.Handler#commandFailed} and
 * the commands behind it still run in the same drain, instead of waiting for the next post's drain;
 * and a drain runs only the commands queued when it started, so that work queued from inside it (a
 * completion queue listener that reposts whatever completes) waits for the next drain instead of
 * holding the event loop in this one. The engine is a recording stand-in on a real event loop.
 */
class WorkQueueDrainTest {

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private final WorkQueue queue = new WorkQueue();
    /** What the stand-in engine saw, in order. */
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch thirdSent = new CountDownLatch(1);

    private final WorkCommand.Handler engine = new RecordingHandler(seen) {
        @Override
        public void postSend(SendWorkRequest request) {
            super.postSend(request);
            if (request.id() < 3) {
                // as a listener called for this request's completion might: queue the next
                queue.enqueue(new WorkCommand.PostSend(SendWorkRequest.send(request.id() + 1)));
            } else {
                thirdSent.countDown();
            }
        }

        @Override
        public void postReceive(ReceiveWorkRequest request) {
            if (request.id() == 2) {
                throw new IllegalStateException("receive " + request.id() + " broke the engine");
            }
            super.postReceive(request);
        }
    };

    @AfterEach
    void shutDown() throws Exception {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
    }

    private void bind() throws Exception {
        loop.submit(() -> queue.bind(loop, engine, engine)).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCommandThatThrowsIsReportedAndTheCommandsBehindItRunInTheSameDrain() throws Exception {
        bind();
        // one post from this thread queues all three, then schedules one drain
        queue.postReceives(new ReceiveWorkRequest[] {new ReceiveWorkRequest(1), new ReceiveWorkRequest(2),
                new ReceiveWorkRequest(3)}, n -> { });
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        assertThat(seen).containsExactly("cmd:1", "failed:2: receive 2 broke the engine", "cmd:3", "drained");
    }

    @Test
    void workQueuedFromInsideADrainRunsInTheNextDrain() throws Exception {
        bind();
        queue.enqueue(new WorkCommand.PostSend(SendWorkRequest.send(1)));
        assertThat(thirdSent.await(10, TimeUnit.SECONDS)).isTrue();
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS); // after the drain that ran 3, and any it scheduled
        assertThat(seen).containsExactly("send:1", "drained", "send:2", "drained", "send:3", "drained");
    }
}
