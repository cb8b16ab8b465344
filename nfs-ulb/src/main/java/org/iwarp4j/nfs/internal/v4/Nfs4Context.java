package org.iwarp4j.nfs.internal.v4;

import java.security.SecureRandom;
import java.util.function.LongSupplier;
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
    private final Object lock = new Object();
    private final ClientTable clients;
    private final SessionTable sessions;
    private final StateTable states;
    private final Callbacks callbacks = new Callbacks();

    public Nfs4Context(Nfs3Context base, Nfs4Settings settings, LongSupplier clockMillis) {
        this.base = base;
        this.attributes3 = new AttributeOps(base);
        this.names3 = new NamespaceOps(base, attributes3);
        this.data3 = new DataOps(base);
        this.settings = settings;
        this.clockMillis = clockMillis;
        this.startMillis = clockMillis.getAsLong();
        this.bootId = new SecureRandom().nextInt() | 1;
        this.clients = new ClientTable(this);
        this.sessions = new SessionTable(this);
        this.states = new StateTable(this);
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

    int bootId() {
        return bootId;
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

    /** Whether the grace period after start is still running (RFC 8881 §8.4.2). */
    boolean inGrace() {
        return now() - startMillis < settings.graceSeconds() * 1000L;
    }

    /** The seconds the server started at, for EXCHANGE_ID's server owner. */
    long startMillis() {
        return startMillis;
    }
}
