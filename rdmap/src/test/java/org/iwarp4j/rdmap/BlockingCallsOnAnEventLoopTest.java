package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The public calls that wait, called on one of the RNIC's own event loops, as from a completion
 * queue listener, a connection request handler or a callback of a queue pair's futures (finding 9
 * of docs/limits.md's tenth review). {@link Rnic#listen} threw Netty's {@code
 * BlockingOperationException} when its server channel was given the calling loop and blocked the
 * loop otherwise; {@link CompletionQueue#take()} and a timed {@link CompletionQueue#poll(long,
 * TimeUnit)} could wait for the very loop they blocked. Each now throws {@link
 * IllegalStateException} on every loop of the RNIC, whichever loop the work would have taken, and
 * {@link Rnic#listenAsync} listens from there. {@link Listener#close()}, which waited for the
 * listener's loop, closes there without waiting.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BlockingCallsOnAnEventLoopTest {

    private static final int WAIT_SECONDS = 5;
    /** More listens per loop than the RNIC has loops: the server channels take the loops in turn. */
    private static final int TRIES = 4;

    private static IllegalStateException thrownOn(EventExecutor loop, Callable<?> call) {
        ExecutionException e = catchThrowableOfType(ExecutionException.class,
                () -> loop.submit(call).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e).as("the call failed on the event loop").isNotNull();
        assertThat(e.getCause()).isInstanceOf(IllegalStateException.class);
        return (IllegalStateException) e.getCause();
    }

    @Test
    void listenOnAnyOfTheRnicsEventLoopsThrowsIllegalStateException() {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(2).build()) {
            for (EventExecutor loop : rnic.eventLoops()) {
                for (int i = 0; i < TRIES; i++) {
                    assertThat(thrownOn(loop, () -> rnic.listen(new InetSocketAddress("127.0.0.1", 0),
                            MpaSettings.builder().build(), request -> null)))
                            .hasMessageContaining("event loop").hasMessageContaining("another thread");
                }
            }
        }
    }

    @Test
    void listenAsyncOnAnEventLoopListensAndItsFutureFailsWithTheBind() throws Exception {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(2).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue cq = rnic.createCompletionQueue(8);
            for (EventExecutor loop : rnic.eventLoops()) {
                QueuePair server = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
                Listener listener = loop.submit(() -> rnic.listenAsync(new InetSocketAddress("127.0.0.1", 0),
                        MpaSettings.builder().build(), request -> request.accept(server)))
                        .get(WAIT_SECONDS, TimeUnit.SECONDS).get(WAIT_SECONDS, TimeUnit.SECONDS);
                try (listener) {
                    QueuePair client = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).build());
                    client.connect(listener.localAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    assertThat(server.established().get(WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(server);
                    client.close().get(WAIT_SECONDS, TimeUnit.SECONDS);
                }
            }
            try (Listener taken = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> null)) {
                assertThat(rnic.listenAsync(taken.localAddress(), MpaSettings.builder().build(), request -> null))
                        .failsWithin(WAIT_SECONDS, TimeUnit.SECONDS).withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(java.io.IOException.class);
            }
        }
    }

    /**
     * Two of the RNIC's loops, each closing a listener while the other closes another: where one runs
     * on the other loop, {@link Listener#close()} waited for that loop, which was waiting too, for
     * ever. It does not wait on the RNIC's loops. Listeners take the loops in turn; closed both ways
     * round, one of the two rounds is crosswise.
     */
    @Test
    void twoLoopsClosingListenersDoNotWaitForEachOther() throws Exception {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(2).build()) {
            List<EventExecutor> loops = new ArrayList<>();
            rnic.eventLoops().forEach(loops::add);
            for (int round = 0; round < 2; round++) {
                Listener first = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                        request -> null);
                Listener second = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                        request -> null);
                List<Listener> closedBy = round == 0 ? List.of(second, first) : List.of(first, second);
                CyclicBarrier together = new CyclicBarrier(2);
                List<Future<?>> closes = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    Listener listener = closedBy.get(i);
                    closes.add(loops.get(i).submit(() -> {
                        together.await(WAIT_SECONDS, TimeUnit.SECONDS);
                        listener.close();
                        return null;
                    }));
                }
                for (Future<?> close : closes) {
                    close.get(WAIT_SECONDS, TimeUnit.SECONDS);
                }
                for (Listener listener : closedBy) {
                    java.net.SocketAddress address = listener.localAddress();
                    listener.close(); // off the loops: waits for the close under way
                    try (Socket s = new Socket()) {
                        assertThatThrownBy(() -> s.connect(address, WAIT_SECONDS * 1000))
                                .isInstanceOf(java.net.ConnectException.class);
                    }
                }
            }
        }
    }

    @Test
    void waitingForACompletionOnAnyOfTheRnicsEventLoopsThrowsIllegalStateException() throws Exception {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(2).build()) {
            CompletionQueue cq = rnic.createCompletionQueue(4);
            for (EventExecutor loop : rnic.eventLoops()) {
                assertThat(thrownOn(loop, cq::take)).hasMessageContaining("event loop");
                assertThat(thrownOn(loop, () -> cq.poll(1, TimeUnit.MILLISECONDS))).hasMessageContaining("event loop");
                // What does not wait is allowed there.
                assertThat(loop.submit(() -> cq.poll()).get(WAIT_SECONDS, TimeUnit.SECONDS)).isNull();
                assertThat(loop.submit(() -> cq.poll(0, TimeUnit.SECONDS)).get(WAIT_SECONDS, TimeUnit.SECONDS))
                        .isNull();
            }
        }
    }

    /**
     * The waits know only the loops of the RNIC that made the queue, so a queue pair of another
     * RNIC may not complete into it: its loop could wait on the queue it has to fill (twelfth
     * review, item 4). Both the send and the receive queue are checked.
     */
    @Test
    void aQueuePairMayNotUseACompletionQueueOfAnotherRnic() {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
                Rnic other = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            CompletionQueue own = rnic.createCompletionQueue(4);
            CompletionQueue foreign = other.createCompletionQueue(4);
            assertThatThrownBy(() -> rnic.createQueuePair(QueuePairSettings.builder(pd, foreign).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another RNIC");
            assertThatThrownBy(() -> rnic.createQueuePair(QueuePairSettings.builder(pd, own)
                    .receiveCompletionQueue(foreign).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another RNIC");
            assertThatThrownBy(() -> rnic.createQueuePair(QueuePairSettings.builder(pd, foreign)
                    .receiveCompletionQueue(own).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another RNIC");
            assertThat(rnic.createQueuePair(QueuePairSettings.builder(pd, own).build()).state())
                    .isEqualTo(QueuePairState.IDLE);
        }
    }
}
