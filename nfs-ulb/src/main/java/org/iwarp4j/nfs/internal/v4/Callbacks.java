package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back channel of NFSv4.1 sessions (RFC 8881 §2.10.3.1, §20): callbacks go to the client on the
 * connection the session was created on (or the last one BIND_CONN_TO_SESSION bound to the back
 * channel). Over RPC-over-RDMA they use the backward direction (RFC 8167; ULB-R-027), inline only
 * (ULB-R-028: our back channel grants a ca_maxrequestsize no larger than the inline threshold);
 * over TCP they are calls on the client's own connection, whose REPLY records the RPC/TCP server
 * routes back to them (RFC 8881 §2.10.3.1 lets the back channel share the fore channel's
 * connection). A back channel is granted when CREATE_SESSION asks for one
 * (CREATE_SESSION4_FLAG_CONN_BACK_CHAN) on a connection that has a backward direction.
 *
 * <p>The server grants no delegations and no layouts, so it has nothing to recall; it checks the
 * path instead, as knfsd does: once the session's first SEQUENCE shows the client knows the
 * session, a CB_NULL and then a CB_COMPOUND holding CB_SEQUENCE (slot 0, the slot's next sequenceid) go to the
 * client. Their outcome is logged and counted; SEQUENCE never reports the path down, since
 * nothing depends on it.
 */
final class Callbacks {

    private static final Logger log = LoggerFactory.getLogger(Callbacks.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final int DELAY_RETRIES = 10;

    private volatile Function<RpcTransportInfo, RpcClientTransport> backchannels = a -> null;
    /** Guards {@link #answered}; waited on by {@link #awaitAnswered}. */
    private final Object answeredLock = new Object();
    private long answered;
    private final AtomicLong failed = new AtomicLong();
    /** A client whose back channel fails every callback, session after session, must not fill the log. */
    private final LogRateLimit failureLog;

    /** Runs a probe's next try after NFS4ERR_DELAY: {@code attempt} is the try that was delayed (0 first). */
    interface RetryTimer {
        void after(int attempt, Runnable retry);

        /** A second more after each try, as the class comment says. */
        RetryTimer SECONDS = (attempt, retry) ->
                CompletableFuture.delayedExecutor(attempt + 1, TimeUnit.SECONDS).execute(retry);
    }

    private final RetryTimer retryTimer;

    Callbacks(LogRateLimit failureLog) {
        this(failureLog, RetryTimer.SECONDS);
    }

    Callbacks(LogRateLimit failureLog, RetryTimer retryTimer) {
        this.failureLog = failureLog;
        this.retryTimer = retryTimer;
    }

    /** Where backward-direction transports come from: that of the connection a call came on, or null. */
    void backchannels(Function<RpcTransportInfo, RpcClientTransport> lookup) {
        this.backchannels = lookup;
    }

    /** The backward direction of the connection a call came on, or null if it has none. */
    RpcClientTransport channelOf(RpcCallContext rpc) {
        if (rpc.transport().remoteAddress() == null) {
            return null;
        }
        return backchannels.apply(rpc.transport());
    }

    long answered() {
        synchronized (answeredLock) {
            return answered;
        }
    }

    /** Waits until {@code count} callbacks were answered; false if {@code timeout} passed first. */
    boolean awaitAnswered(long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (answeredLock) {
            while (answered < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(answeredLock, left);
            }
            return true;
        }
    }

    private void countAnswered() {
        synchronized (answeredLock) {
            answered++;
            answeredLock.notifyAll();
        }
    }

    long failed() {
        return failed.get();
    }

    /**
     * CB_NULL, then CB_COMPOUND with CB_SEQUENCE, to the session's client; asynchronous. A probe
     * begun later (a back channel bound again) supersedes this one: it stops rather than retry,
     * so a client that rebinds in a loop and answers NFS4ERR_DELAY keeps at most one probe of a
     * session retrying.
     */
    void probe(SessionTable.Session s) {
        RpcClientTransport channel = s.backchannel;
        if (channel == null) {
            return;
        }
        int probe = s.probes.incrementAndGet();
        RpcClient.Builder b = RpcClient.builder(channel).timeout(TIMEOUT);
        if (s.callbackCredential != null) {
            b.credential(s.callbackCredential); // one of the client's csa_sec_parms (RFC 8881 §18.36.3)
        }
        RpcClient client = b.build();
        String session = HexFormat.of().formatHex(s.id);
        client.call(s.callbackProgram, CB_VERSION, CB_NULL, e -> { }).whenComplete((reply, error) -> {
            if (reply != null) {
                reply.close();
            }
            if (error != null) {
                failed(session, "CB_NULL failed: " + error);
                client.close();
                return;
            }
            countAnswered();
            log.debug("NFSv4.1 back channel of session {}: CB_NULL answered", session);
            sequence(client, s, probe, session, s.backSlotSeqid.incrementAndGet(), 0);
        });
    }

    /**
     * CB_COMPOUND with CB_SEQUENCE on back channel slot 0 with its next sequenceid (a session whose
     * back channel is bound again after a reconnection is probed again, RFC 8881 §2.10.6.1). A client busy with its
     * session (Linux while its state manager drains the slots at mount) answers NFS4ERR_DELAY,
     * which asks for the same request later (RFC 8881 §15.1.1.3): up to {@link #DELAY_RETRIES}
     * times, a second more each time.
     */
    private void sequence(RpcClient client, SessionTable.Session s, int probe, String session, int seqid,
                          int attempt) {
        if (s.probes.get() != probe) {
            log.debug("NFSv4.1 back channel of session {}: probe superseded", session);
            client.close();
            return;
        }
        client.call(s.callbackProgram, CB_VERSION, CB_COMPOUND, e -> {
            // the session's minor version: Linux looks the session up among clients of that version
            e.writeString("", NFS4_OPAQUE_LIMIT).writeUnsignedInt(s.minorVersion).writeUnsignedInt(0)
                    .writeUnsignedInt(1);
            e.writeInt(OP_CB_SEQUENCE).writeFixedOpaque(s.id).writeInt(seqid).writeInt(0).writeInt(0)
                    .writeBoolean(false).writeUnsignedInt(0);
        }).whenComplete((reply, error) -> {
            boolean again = false;
            try {
                if (error != null) {
                    failed(session, "CB_COMPOUND failed: " + error);
                    return;
                }
                int status;
                try {
                    status = cbSequenceStatus(reply);
                } catch (XdrException e) {
                    // Thrown out of this stage it would end the probe unseen: neither counted nor logged.
                    failed(session, "CB_COMPOUND reply undecodable: " + e.getMessage());
                    return;
                }
                if (status == NFS4_OK) {
                    countAnswered();
                    log.debug("NFSv4.1 back channel of session {}: CB_SEQUENCE answered NFS4_OK", session);
                } else if (status == NFS4ERR_DELAY && attempt < DELAY_RETRIES && s.probes.get() == probe) {
                    again = true;
                } else if (status == NFS4ERR_DELAY && s.probes.get() != probe) {
                    log.debug("NFSv4.1 back channel of session {}: probe superseded", session);
                } else {
                    failed(session, "CB_SEQUENCE answered " + status);
                }
            } finally {
                if (reply != null) {
                    reply.close();
                }
                if (again) {
                    retryTimer.after(attempt, () -> sequence(client, s, probe, session, seqid, attempt + 1));
                } else {
                    client.close(); // the backward direction itself stays open: it ends with the connection
                }
            }
        });
    }

    private void failed(String session, String what) {
        failed.incrementAndGet();
        long held = failureLog.admit();
        if (held >= 0) {
            log.warn("NFSv4.1 back channel of session {}: {}{}", session, what,
                    held == 0 ? "" : " (" + held + " more failed callbacks not warned of since the last message)");
        } else {
            log.debug("NFSv4.1 back channel of session {}: {}", session, what);
        }
    }

    /** Failure warnings held back since the start. */
    long failureWarningsHeld() {
        return failureLog.heldTotal();
    }

    /**
     * The status of CB_COMPOUND4res's CB_SEQUENCE result (RFC 8881 §20.9); {@link XdrException}
     * if the client's reply is cut short.
     */
    private static int cbSequenceStatus(RpcReply reply) {
        XdrDecoder in = reply.results();
        int status = in.readInt();
        in.readOpaque(NFS4_OPAQUE_LIMIT);
        if (in.readUnsignedInt() == 0) {
            return status;
        }
        if (in.readInt() != OP_CB_SEQUENCE) {
            return NFS4ERR_SERVERFAULT;
        }
        return in.readInt();
    }
}
