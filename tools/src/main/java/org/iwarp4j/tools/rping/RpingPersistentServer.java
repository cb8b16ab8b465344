package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.ConnectionDecision;
import org.iwarp4j.rdmap.ConnectionRequest;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.tools.rping.internal.RpingLog;

/**
 * {@code rping -s -P}: Linux rping's persistent server, which keeps listening and serves every
 * client that connects, each on its own queue pair, buffers and thread, at the same time (rping's
 * {@code rping_run_persistent_server}). Unlike Linux's, it serves at most {@link
 * #MAX_CLIENTS} clients at once and rejects a Request beyond that, so that no peer can make it hold
 * unbounded memory and threads. Each client's run is reported as {@link RpingServer}'s is, with
 * its address, on the error stream when it fails; the server itself runs until {@link #close()}.
 */
public final class RpingPersistentServer implements AutoCloseable {

    /** Clients served at once; a Request beyond is rejected (MPA Reply with R=1). */
    public static final int MAX_CLIENTS = 64;

    private static final long CLOSE_WAIT_SECONDS = 10;

    private final RpingOptions options;
    private final RpingLog log;
    private final int maxClients;
    private final Rnic rnic;
    private final Listener listener;
    private final Set<Client> clients = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger succeeded = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger rejected = new AtomicInteger();
    /** Notified whenever a client's run ends. */
    private final Object ended = new Object();
    private volatile boolean closed;

    private RpingPersistentServer(RpingOptions options, RpingLog log, int maxClients) throws InterruptedException {
        this.options = options;
        this.log = log;
        this.maxClients = maxClients;
        rnic = Rnic.builder().eventLoopThreads(1)
                .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(options.pcap())).build();
        try {
            listener = rnic.listen(options.socketAddress(), options.mpaSettings(), this::connectRequest);
        } catch (Exception e) {
            // A bind failure arrives as Netty rethrows it: possibly a checked exception, undeclared.
            rnic.close();
            throw e;
        }
        log.debug("rdma_bind_addr successful");
        log.debug("rdma_listen on %s", localAddress());
    }

    /**
     * Listens on the options' address and port and serves every client from now on, until closed.
     * If the address cannot be bound, the socket's exception propagates as Netty raised it (a
     * {@link java.net.BindException}, undeclared).
     */
    public static RpingPersistentServer bind(RpingOptions options, PrintWriter out, PrintWriter err)
            throws InterruptedException {
        return bind(options, out, err, MAX_CLIENTS);
    }

    /** As {@link #bind(RpingOptions, PrintWriter, PrintWriter)}, with another bound on clients served at once. */
    static RpingPersistentServer bind(RpingOptions options, PrintWriter out, PrintWriter err, int maxClients)
            throws InterruptedException {
        if (!options.server()) {
            throw new IllegalArgumentException("client options given to the server");
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("maxClients " + maxClients + " < 1");
        }
        return new RpingPersistentServer(options, new RpingLog(out, err, options.debug()), maxClients);
    }

    /** The bound address (the port is the one chosen when the options asked for port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** Clients whose runs ended as asked (disconnected after {@code -C} iterations, or any without it). */
    public int clientsSucceeded() {
        return succeeded.get();
    }

    /** Clients whose runs failed (or were cut by {@link #close()}). */
    public int clientsFailed() {
        return failed.get();
    }

    /** Requests rejected because {@link #MAX_CLIENTS} were being served. */
    public int clientsRejected() {
        return rejected.get();
    }

    /** Waits until {@code count} clients' runs have ended (succeeded or failed); false if the time ran out first. */
    boolean awaitClientsEnded(int count, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (ended) {
            while (succeeded.get() + failed.get() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(ended, left);
            }
        }
        return true;
    }

    /** Clients being served now. */
    public int clientsServed() {
        return clients.size();
    }

    /**
     * Runs on an event loop: a queue pair and buffers of its own for this client, and a thread that
     * serves it once the connection is up; or a reject when the server is full or closing.
     */
    private ConnectionDecision connectRequest(ConnectionRequest request) {
        if (closed || clients.size() >= maxClients) {
            rejected.incrementAndGet();
            log.error("rejecting a connection request from " + request.remoteAddress() + ": "
                    + (closed ? "the server is closing" : maxClients + " clients are being served, the most at once"));
            return request.reject(new byte[0]);
        }
        log.debug("cma_event type RDMA_CM_EVENT_CONNECT_REQUEST from %s", request.remoteAddress());
        RpingEndpoint endpoint = null;
        try {
            endpoint = new RpingEndpoint(options, log, rnic);
            endpoint.postReceive();
        } catch (RuntimeException e) {
            if (endpoint != null) {
                endpoint.close();
            }
            rejected.incrementAndGet();
            log.error("rejecting a connection request from " + request.remoteAddress() + ": " + e.getMessage());
            return request.reject(new byte[0]);
        }
        Client client = new Client(endpoint, String.valueOf(request.remoteAddress()), accepted.incrementAndGet());
        clients.add(client);
        client.thread.start();
        log.debug("accepting client connection request");
        return request.accept(endpoint.queuePair);
    }

    /** One client: its endpoint on the shared RNIC and the thread that serves it (rping's {@code persistent_server_thread}). */
    private final class Client implements Runnable {
        final RpingEndpoint endpoint;
        final String peer;
        final Thread thread;

        Client(RpingEndpoint endpoint, String peer, int number) {
            this.endpoint = endpoint;
            this.peer = peer;
            this.thread = new Thread(this, "rping-client-" + number);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                RpingResult result = serve();
                (result.isSuccess() ? succeeded : failed).incrementAndGet();
            } catch (InterruptedException e) {
                failed.incrementAndGet();
            } finally {
                endpoint.close();
                clients.remove(this);
                synchronized (ended) {
                    ended.notifyAll();
                }
            }
        }

        private RpingResult serve() throws InterruptedException {
            NegotiatedParameters negotiated;
            try {
                if (options.timeout() == null) {
                    endpoint.queuePair.established().get();
                } else {
                    endpoint.queuePair.established().get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
                }
                negotiated = endpoint.queuePair.negotiated();
            } catch (TimeoutException | ExecutionException e) {
                String failure = "connect error (client " + peer + "): " + (e instanceof TimeoutException
                        ? "not established within " + options.timeout().toMillis() + " ms" : e.getCause().getMessage());
                log.error(failure);
                return new RpingResult(0, 0, null, failure);
            }
            log.debug("ESTABLISHED: %s", negotiated);
            return new ServerPingLoop(options, log, endpoint, () -> closed, peer).run(negotiated);
        }
    }

    /** Stops listening, cuts every client's connection and waits (10 s at most) for their threads; then frees the RNIC. */
    @Override
    public void close() {
        synchronized (ended) {
            if (closed) {
                return;
            }
            closed = true;
        }
        listener.close();
        List<Client> serving = new ArrayList<>(clients);
        for (Client c : serving) {
            c.endpoint.queuePair.abort();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
        for (Client c : serving) {
            try {
                c.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        rnic.close();
    }
}
