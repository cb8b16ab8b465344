package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A queue pair runs at most one connection (RFC 5040 §6: a stream's life ends with its
 * termination): connect, a listener's accept and close take its IDLE state with one
 * compare-and-set, so that neither a second connection nor a close that already ended it can be
 * followed by a live queue pair, and every request posted meanwhile completes.
 */
@Timeout(120)
class QueuePairLifeCycleTest {

    private static final long WAIT = 5;

    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final MemoryRegion region = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
    /** The queue pairs the listener accepts with when a test does not name one. */
    private final List<QueuePair> accepted = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        rnic.close();
        region.close();
        memory.release();
    }

    private QueuePair newQueuePair(CompletionQueue cq) {
        return rnic.createQueuePair(QueuePairSettings.builder(pd, cq).receiveQueueDepth(4096).build());
    }

    private Listener listenAcceptingEach() throws InterruptedException {
        CompletionQueue serverCq = rnic.createCompletionQueue(16);
        return rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(), request -> {
            QueuePair server = newQueuePair(serverCq);
            accepted.add(server);
            return request.accept(server);
        });
    }

    @Test
    void connectAfterCloseThrowsAndTheQueuePairStaysClosed() throws Exception {
        try (Listener listener = listenAcceptingEach()) {
            QueuePair qp = newQueuePair(rnic.createCompletionQueue(4));
            qp.close().get(WAIT, TimeUnit.SECONDS);

            assertThatThrownBy(() -> qp.connect(listener.localAddress()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("one connection");
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(qp.established()).isCompletedExceptionally();
        }
    }

    @Test
    void aSecondConnectThrowsAndLeavesTheFirstConnectionAlone() throws Exception {
        try (Listener listener = listenAcceptingEach()) {
            QueuePair qp = newQueuePair(rnic.createCompletionQueue(4));
            qp.connect(listener.localAddress()).get(WAIT, TimeUnit.SECONDS);

            assertThatThrownBy(() -> qp.connect(listener.localAddress()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("one connection");
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            qp.close().get(WAIT, TimeUnit.SECONDS);
        }
    }

    @Test
    void acceptingWithAQueuePairAlreadyInUseOrClosedIsRejected() throws Exception {
        CompletionQueue serverCq = rnic.createCompletionQueue(16);
        QueuePair server = newQueuePair(serverCq);
        server.postReceive(new ReceiveWorkRequest(1, region.sge(0, 16)));
        QueuePair closedBefore = newQueuePair(serverCq);
        closedBefore.close().get(WAIT, TimeUnit.SECONDS);
        List<QueuePair> acceptWith = new CopyOnWriteArrayList<>(List.of(server, server, closedBefore));
        try (Listener listener = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                request -> request.accept(acceptWith.remove(0)))) {
            QueuePair first = newQueuePair(rnic.createCompletionQueue(4));
            first.connect(listener.localAddress()).get(WAIT, TimeUnit.SECONDS);
            server.established().get(WAIT, TimeUnit.SECONDS);

            for (int i = 0; i < 2; i++) { // accepted with the connected queue pair, then with the closed one
                QueuePair refused = newQueuePair(rnic.createCompletionQueue(4));
                assertThat(refused.connect(listener.localAddress())).failsWithin(WAIT, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(MpaRejectedException.class);
            }
            assertThat(closedBefore.state()).isEqualTo(QueuePairState.ERROR);

            // The first connection is still the server queue pair's, with its one engine.
            ByteBuf octets = ByteBufAllocator.DEFAULT.directBuffer(4).writeInt(0x0BADCAFE);
            try (MemoryRegion message = pd.register(octets, EnumSet.of(Access.LOCAL_WRITE))) {
                first.postSend(SendWorkRequest.send(2, message.sge()));
                WorkCompletion received = serverCq.poll(WAIT, TimeUnit.SECONDS);
                assertThat(received).isNotNull();
                assertThat(received.workRequestId()).isEqualTo(1);
                assertThat(received.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(received.byteLength()).isEqualTo(4);
                assertThat(serverCq.poll()).as("exactly one completion for one Send").isNull();
                assertThat(server.state()).isEqualTo(QueuePairState.RTS);
            } finally {
                octets.release();
            }
            first.close().get(WAIT, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCloseRacingAConnectNeverLeavesALiveQueuePair() throws Exception {
        try (Listener listener = listenAcceptingEach()) {
            CompletionQueue cq = rnic.createCompletionQueue(16);
            for (int i = 0; i < 100; i++) {
                QueuePair qp = newQueuePair(cq);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Boolean> connected = threads.submit(() -> {
                    start.await(WAIT, TimeUnit.SECONDS);
                    try {
                        qp.connect(listener.localAddress());
                        return true;
                    } catch (IllegalStateException closedFirst) {
                        return false;
                    }
                });
                Future<?> closed = threads.submit(() -> {
                    start.await(WAIT, TimeUnit.SECONDS);
                    return qp.close();
                });
                connected.get(WAIT, TimeUnit.SECONDS);
                closed.get(WAIT, TimeUnit.SECONDS);

                // Whichever won, the queue pair ends: it is closed, never established for good.
                qp.closeFuture().get(WAIT, TimeUnit.SECONDS);
                qp.established().handle((q, e) -> null).get(WAIT, TimeUnit.SECONDS);
                assertThat(qp.state()).as("iteration %d", i).isEqualTo(QueuePairState.ERROR);
            }
        }
    }

    @Test
    void everyReceivePostedWhileAnIdleQueuePairClosesCompletes() throws Exception {
        CompletionQueue cq = rnic.createCompletionQueue(1 << 16);
        for (int i = 0; i < 300; i++) {
            QueuePair qp = newQueuePair(cq);
            CyclicBarrier start = new CyclicBarrier(2);
            Future<Integer> posted = threads.submit(() -> {
                start.await(WAIT, TimeUnit.SECONDS);
                int n = 0;
                try {
                    while (n < 4096) {
                        qp.postReceive(new ReceiveWorkRequest(n, region.sge(0, 16)));
                        n++;
                    }
                } catch (IllegalStateException closed) {
                    // the close took the queue pair: no more posts
                }
                return n;
            });
            Future<CompletableFuture<QueuePair>> closing = threads.submit(() -> {
                start.await(WAIT, TimeUnit.SECONDS);
                return qp.close();
            });
            int n = posted.get(WAIT, TimeUnit.SECONDS);
            closing.get(WAIT, TimeUnit.SECONDS).get(WAIT, TimeUnit.SECONDS);

            for (int c = 0; c < n; c++) {
                WorkCompletion completion = cq.poll(WAIT, TimeUnit.SECONDS);
                assertThat(completion).as("iteration %d: completion %d of %d posted", i, c, n).isNotNull();
                assertThat(completion.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            }
            assertThat(cq.poll()).as("iteration %d: no more than posted", i).isNull();
        }
    }
}
