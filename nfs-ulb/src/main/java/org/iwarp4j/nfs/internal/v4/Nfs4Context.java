package org.iwarp4j.nfs.internal.v4;

import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.iwarp4j.nfs.internal.AttributeOps;
import org.iwarp4j.nfs.internal.DataOps;
import org.iwarp4j.nfs.internal.NamespaceOps;
import org.iwarp4j.nfs.internal.Nfs3Context;

/**
 * What the NFSv4.1 server shares: the export machinery of the NFSv3 server (handles, access
 * control, the file operations it wraps), the settings, the clock, and the client, session and
 * state tables. The tables are guarded by one lock ({@link #lock}): operations on state are short
 * and file-system work happens outside it.
 */
public final class Nfs4Context {

    private final Nfs3Context base;
    private final AttributeOps attributes3;
    private final NamespaceOps names3;
    private final DataOps data3;
    private final Nfs4Settings settings;
    private final LongSupplier clockMillis;
    private final long startMillis;
    /** Random per start: the high word of client ids and stateids, so that old ones are recognised as stale. */
    private final int bootId;
    /** What ids another host must not work out from its own are drawn from: session ids, client ids' low words. */
    private final SecureRandom random = new SecureRandom();
    private final Object lock = new Object();
    private final ClientTable clients;
    private final SessionTable sessions;
    private final StateTable states;
    private final Callbacks callbacks;
    private final ClientRecords records;
    /** How long the grace period after start lasts (RFC 8881 §8.4.2), 0 for none. */
    private final long graceMillis;
    /** The owners of the previous incarnation's clients that have done RECLAIM_COMPLETE since this start. */
    private final java.util.Set<java.nio.ByteBuffer> reclaimed = new java.util.HashSet<>();
    private boolean graceOver;

    /**
     * A context whose client records are kept in {@code stateDirectory} (null: nowhere). With
     * records of a previous start present, the server starts in a grace period of
     * {@code settings.graceSeconds()}, or one lease time if that is 0 (RFC 8881 §8.4.2.1).
     */
    public Nfs4Context(Nfs3Context base, Nfs4Settings settings, LongSupplier clockMillis,
                       java.nio.file.Path stateDirectory) throws java.io.IOException {
        this(base, settings, clockMillis, stateDirectory == null ? ClientRecords.none()
                : ClientRecords.open(stateDirectory, settings.maxClients(), warningLimit(clockMillis)));
    }

    private Nfs4Context(Nfs3Context base, Nfs4Settings settings, LongSupplier clockMillis, ClientRecords records) {
        this.base = base;
        this.attributes3 = new AttributeOps(base);
        this.names3 = new NamespaceOps(base, attributes3);
        this.data3 = new DataOps(base);
        this.settings = settings;
        this.clockMillis = clockMillis;
        this.startMillis = clockMillis.getAsLong();
        this.callbacks = new Callbacks(warningLimit(clockMillis));
        this.bootId = random.nextInt() | 1;
        this.clients = new ClientTable(this);
        this.sessions = new SessionTable(this);
        this.states = new StateTable(this);
        this.records = records;
        long grace = settings.graceSeconds() * 1000L;
        if (grace == 0 && !records.previous().isEmpty()) {
            grace = settings.leaseSeconds() * 1000L;
        }
        this.graceMillis = grace;
        if (!records.previous().isEmpty()) {
            org.slf4j.LoggerFactory.getLogger(Nfs4Context.class).info("NFSv4 grace period of {} s: {} clients of the "
                    + "previous start may reclaim their state", grace / 1000, records.previous().size());
        }
    }

    public Nfs4Context(Nfs3Context base, Nfs4Settings settings, LongSupplier clockMillis) {
        this(base, settings, clockMillis, ClientRecords.none());
    }

    public Nfs4Context(Nfs3Context base, Nfs4Settings settings) {
        this(base, settings, System::currentTimeMillis);
    }


    Nfs3Context base() {
        return base;
    }

    AttributeOps attributes3() {
        return attributes3;
    }

    NamespaceOps names3() {
        return names3;
    }

    DataOps data3() {
        return data3;
    }

    public Nfs4Settings settings() {
        return settings;
    }

    long now() {
        return clockMillis.getAsLong();
    }

    /**
     * A limit for one kind of warning that a client can provoke (a COMPOUND that meets a server
     * fault, a back channel that fails, a client the full records cannot take): at most {@value
     * #WARNING_BURST} messages per {@value #WARNING_INTERVAL_SECONDS} seconds of this server's
     * clock, the rest counted into the next one, so that a client doing it in a loop cannot fill
     * the log (as the RPC dispatcher limits its SYSTEM_ERR warnings).
     */
    LogRateLimit warningLimit() {
        return warningLimit(clockMillis);
    }

    static final int WARNING_BURST = 10;
    static final int WARNING_INTERVAL_SECONDS = 5;

    private static LogRateLimit warningLimit(LongSupplier clockMillis) {
        return new LogRateLimit(WARNING_BURST, WARNING_INTERVAL_SECONDS, TimeUnit.SECONDS,
                () -> TimeUnit.MILLISECONDS.toNanos(clockMillis.getAsLong()));
    }

    int bootId() {
        return bootId;
    }

    SecureRandom random() {
        return random;
    }

    Object lock() {
        return lock;
    }

    ClientTable clients() {
        return clients;
    }

    SessionTable sessions() {
        return sessions;
    }

    StateTable states() {
        return states;
    }

    Callbacks callbacks() {
        return callbacks;
    }

    /**
     * Where the back channels of sessions come from: for the connection a call came on, its
     * backward direction (RPC-over-RDMA, RFC 8167; or calls on the same TCP connection), or null.
     */
    public void backchannels(java.util.function.Function<org.iwarp4j.oncrpc.RpcTransportInfo,
            org.iwarp4j.oncrpc.RpcClientTransport> lookup) {
        callbacks.backchannels(lookup);
    }

    /** Callbacks (CB_NULL, CB_SEQUENCE) that clients answered successfully. */
    public long callbacksAnswered() {
        return callbacks.answered();
    }

    /** Waits until {@code count} callbacks were answered; false if {@code timeout} passed first. */
    public boolean awaitCallbacksAnswered(long count, java.time.Duration timeout) throws InterruptedException {
        return callbacks.awaitAnswered(count, timeout);
    }

    ClientRecords records() {
        return records;
    }

    /**
     * Whether the grace period after start is still running (RFC 8881 §8.4.2): it lasts its time,
     * or less when every client recorded by the previous start has done RECLAIM_COMPLETE (§8.4.2.1:
     * nobody is left who could reclaim). When it ends, the records of the clients that did not
     * reclaim are dropped: their state is gone for good. Callers hold {@link #lock()}.
     */
    boolean inGrace() {
        if (graceOver) {
            return false;
        }
        // only recorded owners enter 'reclaimed', so equal sizes mean all of them (and no walk per call)
        boolean allReclaimed = !records.previous().isEmpty() && reclaimed.size() == records.previous().size();
        if (now() - startMillis < graceMillis && !allReclaimed) {
            return true;
        }
        graceOver = true;
        java.util.Set<java.nio.ByteBuffer> lost = new java.util.HashSet<>(records.previous());
        lost.removeAll(reclaimed);
        records.removeAll(lost);
        if (graceMillis > 0) {
            org.slf4j.LoggerFactory.getLogger(Nfs4Context.class).info("NFSv4 grace period over after {} ms: {} of {} "
                    + "recorded clients reclaimed", now() - startMillis, reclaimed.size(), records.previous().size());
        }
        return false;
    }

    /**
     * Why {@code client} may not reclaim now, as the status to answer (RFC 8881 §8.4.2.1,
     * §18.51.3): NFS4ERR_NO_GRACE outside the grace period, for a client the previous start did
     * not record, and after the client's RECLAIM_COMPLETE; 0 if it may.
     */
    int reclaimRefusal(ClientTable.Client client) {
        if (!inGrace() || !records.wasRecorded(client.owner) || client.reclaimComplete) {
            return org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_NO_GRACE;
        }
        return 0;
    }

    /** RECLAIM_COMPLETE of {@code client}: recorded as a client that may hold state, and counted for the grace period. */
    void reclaimComplete(ClientTable.Client client) {
        records.add(client.owner);
        if (records.wasRecorded(client.owner)) {
            reclaimed.add(java.nio.ByteBuffer.wrap(client.owner));
        }
    }

    /** The seconds the server started at, for EXCHANGE_ID's server owner. */
    long startMillis() {
        return startMillis;
    }
}
