package org.iwarp4j.tools.bench;

import org.iwarp4j.tools.bench.internal.ControlChannel;
import org.iwarp4j.tools.bench.internal.PingPongDest;
import org.iwarp4j.tools.bench.internal.TcpBenchServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.iwarp4j.tools.bench.internal.DataEnd;
import org.iwarp4j.tools.bench.internal.RdmaSession;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.Rnic;

/**
 * The server of perftest's rdma_cm mode, serving one client and returning: {@code iwarp bench
 * write --server}. One listener takes the control connection first and then one connection per
 * data queue pair (perftest listens twice on the same port; one listener serving both is the same
 * to a client). The message order is {@link PerftestClient}'s, mirrored.
 */
public final class PerftestServer implements AutoCloseable {

    private final BenchSettings settings;
    private final Rnic rnic;
    private final ControlChannel control;
    private final DataEnd data;
    private final Listener listener;
    private final List<QueuePair> dataQueuePairs = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    private final InetSocketAddress boundAddress;
    /** The plain-TCP comparison's server, on the same port once the data connections are up; or null. */
    private volatile TcpBenchServer tcp;
    /** Told of the plain-TCP comparison's application threads as they start (its latency echoes). */
    private volatile Consumer<Thread> tcpApplicationThreads = t -> { };
    /** Where the control connection came from: the only address the TCP comparison serves. */
    private volatile java.net.InetAddress controlPeer;
    /**
     * How long the client's end of the comparison (its DONE) may take once the control connection
     * is gone: a client closes the control connection first, then says DONE.
     */
    private long doneGraceSeconds = 10;
    /** How long the client may keep the control connection open after the closing handshake without its DONE. */
    private static final long COMPARISON_END_SECONDS = 60;

    /** Listens at {@code address} (port 0: any) until {@link #serveOne} or {@link #close}. */
    public PerftestServer(BenchSettings settings, InetSocketAddress address, MeterRegistry meters)
            throws InterruptedException {
        this.settings = settings;
        this.rnic = settings.rnic(settings.eventLoopThreads(), meters);
        this.control = new ControlChannel(rnic, settings.mpa(), false, 60);
        this.data = new DataEnd(rnic, settings);
        Queue<QueuePair> offered = new ConcurrentLinkedQueue<>();
        offered.add(control.queuePair());
        for (int i = 0; i < settings.queuePairs(); i++) {
            QueuePair qp = data.newQueuePair(rnic);
            if (settings.test() == BenchTest.SEND) {
                data.postReceives(qp, i); // while IDLE: in place before the client's first Send can arrive
            }
            dataQueuePairs.add(qp);
            offered.add(qp);
        }
        Listener bound;
        try {
            bound = rnic.listen(address, settings.mpa(), request -> {
                QueuePair next = offered.poll();
                if (next == control.queuePair() && request.remoteAddress() instanceof InetSocketAddress peer) {
                    controlPeer = peer.getAddress();
                }
                return next == null ? request.reject(new byte[0]) : request.accept(next);
            });
        } catch (Throwable e) { // Netty's bind failure is an undeclared checked exception: release all the same
            close();
            throw e;
        }
        this.listener = bound;
        this.boundAddress = (InetSocketAddress) bound.localAddress();
    }

    public InetSocketAddress localAddress() {
        return boundAddress;
    }

    /**
     * Between iwarp4j ends that both compare, after the RDMA session: waits until the client has
     * finished the plain-TCP comparison (it measures each size's TCP transfer right after the RDMA
     * one, so only its DONE is left after the closing handshake), then closes its server. The wait
     * is bounded: a client that closed the control connection has {@code doneGraceSeconds} left, one
     * that does neither {@link #COMPARISON_END_SECONDS}.
     */
    public void awaitTcpComparison() throws IOException, InterruptedException {
        TcpBenchServer server = tcp;
        if (server == null) {
            return;
        }
        tcp = null; // closed here: close() must not close it again (its event loop is gone by then)
        try (server) {
            CompletableFuture<Void> done = server.done();
            try {
                CompletableFuture.anyOf(done, control.queuePair().closeFuture())
                        .get(COMPARISON_END_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException controlFailed) {
                // gone all the same
            } catch (TimeoutException e) {
                throw new IOException("the client neither ended the plain-TCP comparison nor closed the control"
                        + " connection within " + COMPARISON_END_SECONDS + " s of the closing handshake", e);
            }
            try {
                done.get(doneGraceSeconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new IOException("the client closed the control connection and did not end the plain-TCP"
                        + " comparison (its DONE) within " + doneGraceSeconds + " s", e);
            } catch (ExecutionException e) {
                throw new IOException("TCP comparison failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * Tells {@code started} of the plain-TCP comparison's application threads as they start (its
     * latency echoes' responders), for a loopback run's CPU clock, which counts this end's RDMA
     * responder thread too. Set it before {@link #serveOne}.
     */
    void onTcpApplicationThread(Consumer<Thread> started) {
        this.tcpApplicationThreads = started;
    }

    /** For tests: how long {@link #awaitTcpComparison} gives the DONE once the control connection is gone. */
    void doneGrace(long seconds) {
        this.doneGraceSeconds = seconds;
    }

    /** Serves one client: waits for it as long as it takes, runs the test, returns what was found. */
    public RdmaOutcome serveOne(Consumer<String> progress) throws IOException, InterruptedException {
        try {
            control.queuePair().established().get();
        } catch (ExecutionException e) {
            throw new ConnectFailedException("control connection failed: " + e.getCause(), e.getCause());
        }
        return new Session(progress).run();
    }

    /** The data queue pairs offered to the client, in order (for tests). */
    List<QueuePair> dataQueuePairs() {
        return dataQueuePairs;
    }

    /**
     * The data queue pairs for a failure's diagnosis ({@link WorkRequestFailedException#describe}):
     * state, Terminate sent or received, local failure. A client that saw a completion fail is
     * often ahead of this end (its Terminate or its close is still on the way), so this first waits
     * up to {@code settleMillis} altogether for the queue pairs to close.
     */
    public List<String> describeQueuePairs(long settleMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMillis);
        List<String> lines = new ArrayList<>();
        for (QueuePair qp : dataQueuePairs) {
            try {
                qp.closeFuture().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // still open: describe it as it is
            }
            lines.add(WorkRequestFailedException.describe("server's", qp));
        }
        return lines;
    }

    /** Stops listening; connections continue (the TCP comparison may bind the same port after this). */
    public void stopListening() {
        listener.close();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (listener != null) {
            listener.close();
        }
        TcpBenchServer server = tcp;
        if (server != null) {
            server.close();
        }
        control.close();
        for (QueuePair qp : dataQueuePairs) {
            if (!data.queuePairs().contains(qp)) {
                qp.close();
            }
        }
        data.close();
        rnic.close();
    }

    private final class Session extends RdmaSession {
        Session(Consumer<String> progress) {
            super(PerftestServer.this.rnic, PerftestServer.this.settings, false, progress);
            this.control = PerftestServer.this.control;
            this.data = PerftestServer.this.data;
        }

        @Override
        protected long otherTrafficEndedNanos() {
            TcpBenchServer server = tcp;
            return server == null ? 0 : server.lastConnectionEndedNanos();
        }

        RdmaOutcome run() throws IOException, InterruptedException {
            exchangeSystemData();
            control.handShake(PingPongDest.ZERO);
            for (QueuePair qp : dataQueuePairs) {
                try {
                    data.add(qp.established().get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
                } catch (ExecutionException | TimeoutException e) {
                    throw new ConnectFailedException("data connection " + data.queuePairs().size()
                            + " did not come: " + e, e);
                }
            }
            if (bothCompareTcp()) {
                // Every connection is up: the port can serve the TCP comparison from now on, before the
                // handshake the client waits for, so that its first TCP connection finds it listening.
                stopListening();
                tcp = new TcpBenchServer(boundAddress, settings.transport(), settings.eventLoopThreads(),
                        settings.maxSize(), settings.depth(), settings.pcap(), controlPeer,
                        TcpBenchServer.maxConnections(settings.queuePairs()));
                tcp.onEchoThread(tcpApplicationThreads);
            }
            control.handShake(PingPongDest.ZERO);
            List<PingPongDest> mine = new ArrayList<>();
            for (int i = 0; i < settings.queuePairs(); i++) {
                boolean credit = settings.test() == BenchTest.SEND;
                mine.add(new PingPongDest(0, settings.test() == BenchTest.READ ? 128 : 1,
                        data.queuePairs().get(i).number(), ThreadLocalRandom.current().nextInt(0x1000000),
                        credit ? data.creditRegion().stag() : data.region().stag(),
                        credit ? data.creditAddress(i) : data.targetAddress(i), new byte[16], 0, 0));
            }
            return runTest(mine);
        }
    }

    /** Runs {@link #serveOne} on a thread of its own (loopback mode). */
    public CompletableFuture<RdmaOutcome> serveOneAsync(Consumer<String> progress) {
        CompletableFuture<RdmaOutcome> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                outcome.complete(serveOne(progress));
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        }, "iwarp-bench-server");
        t.setDaemon(true);
        t.start();
        return outcome;
    }
}
