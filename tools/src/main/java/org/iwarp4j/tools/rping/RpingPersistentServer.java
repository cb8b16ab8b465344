package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.ConnectionDecision;
import org.iwarp4j.rdmap.ConnectionRequest;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.tools.internal.RateLimitedLines;
import org.iwarp4j.tools.rping.internal.RpingLog;

/**
 * {@code rping -s -P}: Linux rping's persistent server, which keeps listening and serves every
 * client that connects, each on its own queue pair, buffers and thread, at the same time (rping's
 * {@code rping_run_persistent_server}). Unlike Linux's it is bounded, so that no peer can make it
 * hold unbounded memory and threads: at most {@link #MAX_CLIENTS} clients at once (a Request beyond
 * is rejected), and a client's run ends when it lets {@link #CLIENT_WAIT_LIMIT} pass without the
 * next step of a ping (or the options' {@code --timeout}, if shorter): a client that vanishes
 * without closing its connection gives its place back. Each client's run is reported as {@link
 * RpingServer}'s is, named by the client's address, on the error stream when it fails; the server
 * itself runs until {@link #close()}. Every line on the error stream is one a peer can cause, once
 * per connection it opens: they are rate-limited and written off the event loop and the clients'
 * threads ({@link RateLimitedLines}).
 */
public final class RpingPersistentServer implements AutoCloseable {

    /** Clients served at once; a Request beyond is rejected (MPA Reply with R=1). */
    public static final int MAX_CLIENTS = 64;

    /**
     * The longest a client may take over one step of a ping (its connection coming up, its next
     * Send, our RDMA Read or Write completing): rping's client sends each message as soon as the
     * previous one is answered, so a minute is a client that is gone.
     */
    public static final Duration CLIENT_WAIT_LIMIT = Duration.ofSeconds(60);

    private static final long CLOSE_WAIT_SECONDS = 10;

    private final RpingOptions options;
    /** Its error lines go through {@link #lines}. */
    private final RpingLog log;
    private final RateLimitedLines lines;
    private final int maxClients;
    private final Duration waitLimit;
    private final Rnic rnic;
    private final Listener listener;
    /** Guards {@link #clients} against {@link #closed}: no client is added once close has begun. */
    private final Object lock = new Object();
    private final Set<Client> clients = new HashSet<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private int succeeded;
    private int failed;
    private final AtomicInteger rejected = new AtomicInteger();
    private boolean closed;

    private RpingPersistentServer(RpingOptions options, RpingLog log, int maxClients, Duration waitLimit,
                                  LongSupplier nanoClock) throws InterruptedException {
        this.options = options;
        this.lines = new RateLimitedLines(log::error, "rping-persistent-server-lines", nanoClock);
        this.log = log.withErrorsTo(lines::print);
        this.maxClients = maxClients;
        this.waitLimit = options.timeout() != null && options.timeout().compareTo(waitLimit) < 0
                ? options.timeout() : waitLimit;
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
        return bind(options, out, err, MAX_CLIENTS, CLIENT_WAIT_LIMIT);
    }

    /** As {@link #bind(RpingOptions, PrintWriter, PrintWriter)}, with other bounds (tests). */
    static RpingPersistentServer bind(RpingOptions options, PrintWriter out, PrintWriter err, int maxClients,
                                      Duration waitLimit) throws InterruptedException {
        return bind(options, out, err, maxClients, waitLimit, System::nanoTime);
    }

    /** As above, the rate limit of the error lines on {@code nanoClock} (tests). */
    static RpingPersistentServer bind(RpingOptions options, PrintWriter out, PrintWriter err, int maxClients,
                                      Duration waitLimit, LongSupplier nanoClock) throws InterruptedException {
        if (!options.server()) {
            throw new IllegalArgumentException("client options given to the server");
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("maxClients " + maxClients + " < 1");
        }
        return new RpingPersistentServer(options, new RpingLog(out, err, options.debug()), maxClients, waitLimit,
                nanoClock);
    }

    /** The bound address (the port is the one chosen when the options asked for port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** Clients whose runs ended as asked (disconnected after {@code -C} iterations, or any without it). */
    public int clientsSucceeded() {
        synchronized (lock) {
            return succeeded;
        }
    }

    /** Clients whose runs failed (or were cut by {@link #close()}). */
    public int clientsFailed() {
        synchronized (lock) {
            return failed;
        }
    }

    /** Requests rejected: {@link #MAX_CLIENTS} were being served, the server was closing, or a client could not be set up. */
    public int clientsRejected() {
        return rejected.get();
    }

    /** Clients being served now. */
    public int clientsServed() {
        synchronized (lock) {
            return clients.size();
        }
    }

    /**
     * Waits until {@code count} clients' runs have ended (succeeded or failed, and their places
     * given back) and the lines handed over so far are written; false if the time ran out first.
     */
    boolean awaitClientsEnded(int count, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (succeeded + failed < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
        return lines.awaitWritten(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs on an event loop: a queue pair and buffers of its own for this client, and a thread that
     * serves it once the connection is up; or a reject when the server is full or closing.
     */
    private ConnectionDecision connectRequest(ConnectionRequest request) {
        String peer = String.valueOf(request.remoteAddress());
        synchronized (lock) {
            if (closed || clients.size() >= maxClients) {
                return reject(request, closed ? "the server is closing"
                        : maxClients + " clients are being served, the most at once");
            }
            log.debug("cma_event type RDMA_CM_EVENT_CONNECT_REQUEST from %s", peer);
            RpingEndpoint endpoint = null;
            Client client;
            try {
                endpoint = new RpingEndpoint(options, log, rnic, waitLimit);
                endpoint.postReceive();
                client = new Client(endpoint, peer, accepted.incrementAndGet());
                client.thread.start();
            } catch (RuntimeException | Error e) { // Error: no thread could be created
                if (endpoint != null) {
                    endpoint.close();
                }
                return reject(request, "cannot serve it: " + e);
            }
            clients.add(client);
            log.debug("accepting client connection request");
            return request.accept(endpoint.queuePair);
        }
    }

    private ConnectionDecision reject(ConnectionRequest request, String why) {
        rejected.incrementAndGet();
        log.error("rejecting a connection request from " + request.remoteAddress() + ": " + why);
        return request.reject(new byte[0]);
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
            boolean success = false;
            try {
                success = serve().isSuccess();
            } catch (InterruptedException e) {
                log.error("rping server failed (client " + peer + "): interrupted");
            } catch (RuntimeException e) {
                // A bug of ours must still give the client's place back (a post refused because the
                // connection went down between two steps is a disconnect, reported by the loop).
                log.error("rping server failed (client " + peer + "): " + e);
            } finally {
                try {
                    endpoint.close();
                } finally {
                    synchronized (lock) {
                        clients.remove(this);
                        if (success) {
                            succeeded++;
                        } else {
                            failed++;
                        }
                        lock.notifyAll();
                    }
                }
            }
        }

        private RpingResult serve() throws InterruptedException {
            NegotiatedParameters negotiated;
            try {
                endpoint.queuePair.established().get(waitLimit.toNanos(), TimeUnit.NANOSECONDS);
                negotiated = endpoint.queuePair.negotiated();
            } catch (TimeoutException | ExecutionException e) {
                String failure = "connect error (client " + peer + "): " + (isClosed() ? "the server was closed"
                        : e instanceof TimeoutException ? "not established within " + waitLimit.toMillis() + " ms"
                        : ConnectFailures.describe(e.getCause(), localAddress(), options.mpaSettings()));
                log.error(failure);
                return new RpingResult(0, 0, null, failure);
            }
            log.debug("ESTABLISHED: %s", negotiated);
            return new ServerPingLoop(options, log, endpoint, RpingPersistentServer.this::isClosed, peer)
                    .run(negotiated);
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Stops listening, cuts every client's connection and waits (10 s at most, even if this thread
     * is interrupted) for their threads to give their places back; then frees the RNIC. A client
     * still running then ends within its wait limit and frees what it holds itself.
     */
    @Override
    public void close() {
        List<Client> serving;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            serving = new ArrayList<>(clients);
        }
        listener.close();
        for (Client c : serving) {
            try {
                c.endpoint.queuePair.abort();
            } catch (RuntimeException e) {
                log.debug("abort of %s: %s", c.peer, e);
            }
        }
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS);
        try {
            synchronized (lock) {
                while (!clients.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        log.debug("%d client(s) still ending after %d s", clients.size(), CLOSE_WAIT_SECONDS);
                        break;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
        } finally {
            rnic.close();
            // Last: the clients' lines come until they end. A client still running after the wait
            // above has its last line dropped.
            lines.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
