package org.iwarp4j.oncrpc;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import org.iwarp4j.oncrpc.internal.DuplicateRequestCache;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;
import org.iwarp4j.oncrpc.internal.RpcServerMeters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * The server side of ONC RPC, independent of any transport: programs are registered here, and
 * a server transport hands every received call message to {@link #dispatch} and sends back the
 * reply it completes with (RFC 5531 §9).
 *
 * <p>The checks, in order (as the Linux kernel's RPC server makes them):
 * <ol>
 *   <li>Fewer than 12 octets (xid, msg_type, rpcvers), or msg_type not CALL: no reply is
 *       possible; the future fails with {@link RpcProtocolException} and the transport drops
 *       the message. A call truncated before its credential is dropped the same way.</li>
 *   <li>rpcvers != 2: MSG_DENIED RPC_MISMATCH, low = high = 2.</li>
 *   <li>Credential and verifier: AUTH_NONE (empty body) and AUTH_SYS (a well-formed
 *       authsys_parms) with an AUTH_NONE verifier are accepted. A malformed or unsupported
 *       credential is MSG_DENIED AUTH_ERROR AUTH_BADCRED; a bad verifier AUTH_BADVERF.</li>
 *   <li>Unknown program: PROG_UNAVAIL. Known program, unknown version: PROG_MISMATCH with the
 *       lowest and highest registered versions, and a log line (INFO, at most one a minute) naming
 *       the version asked for, so that an operator sees why a client's mount failed. Unknown
 *       procedure: PROC_UNAVAIL.</li>
 *   <li>The procedure's result decides the rest (see {@link RpcProcedure}): SUCCESS with its
 *       results, GARBAGE_ARGS, PROC_UNAVAIL, AUTH_ERROR or SYSTEM_ERR.</li>
 * </ol>
 * Accepted replies carry an AUTH_NONE verifier. Thread-safe; programs may be registered while
 * calls are dispatched.
 *
 * <p><b>Retransmissions</b> of calls to procedures registered as non-idempotent ({@link
 * RpcProgram.Builder#nonIdempotentProcedure}) are answered from a duplicate request cache (bounded
 * by {@link DuplicateRequestCacheLimits}, {@link DuplicateRequestCacheLimits#DEFAULT} unless
 * another is given): a call from the same client host (any port: a client that reconnects comes
 * from a new one) with the same xid, program, version, procedure, credential and arguments (length
 * and a checksum of the first 256 octets) is not executed again. If the first
 * is still running, the retransmission waits for its reply and gets a copy, on whichever connection
 * it came; if it has been answered, it gets a copy at once. If that reply is not kept (too long, or
 * the first call was dropped) the retransmission fails with {@link RpcDuplicateRequestException},
 * which transports drop without a reply. Replayed replies are counted in {@code
 * iwarp.oncrpc.duplicates} (tag {@code outcome}: {@code replayed}, {@code dropped}), not in {@code
 * iwarp.oncrpc.replies}; {@code iwarp.oncrpc.duplicates.waited} counts, on arrival, those that
 * found the first still in progress.
 */
public final class RpcDispatcher {

    private static final Logger log = LoggerFactory.getLogger(RpcDispatcher.class);

    /** program -> (version as unsigned -> program version). */
    private final Map<Integer, NavigableMap<Long, RpcProgram>> programs = new ConcurrentHashMap<>();
    private final RpcServerMeters meters;
    /** PROG_MISMATCH is a client's business: at most one message a minute. */
    private final LogRateLimit mismatchLog;
    /**
     * SYSTEM_ERR means the program failed, which is this server's business, but a client may be
     * able to repeat the call that makes it fail: at most {@value #SYSTEM_ERR_LOG_BURST} warnings
     * per {@value #SYSTEM_ERR_LOG_INTERVAL_SECONDS} seconds, the rest at debug level and counted
     * into the next warning (every SYSTEM_ERR reply is counted in {@code iwarp.oncrpc.replies}).
     */
    private final LogRateLimit systemErrLog;
    static final int SYSTEM_ERR_LOG_BURST = 10;
    static final int SYSTEM_ERR_LOG_INTERVAL_SECONDS = 5;
    /** The arguments' octets a retransmission's key checksums (knfsd's {@code RC_CSUMLEN}). */
    static final int CHECKSUMMED_OCTETS = 256;
    /** Null when the limits turn it off. */
    private final DuplicateRequestCache duplicates;
    private final LongSupplier nanoClock;

    /** A dispatcher without meters. */
    public RpcDispatcher() {
        this(null);
    }

    /**
     * A dispatcher that counts its replies in {@code registry}: {@code iwarp.oncrpc.replies}
     * (tag {@code stat}), {@code iwarp.oncrpc.dropped}, and the calls in progress per transport,
     * {@code iwarp.oncrpc.calls.active} and {@code iwarp.oncrpc.calls.in.progress} (see {@code org.iwarp4j.oncrpc.internal.RpcServerMeters}).
     */
    public RpcDispatcher(MeterRegistry registry) {
        this(registry, DuplicateRequestCacheLimits.DEFAULT);
    }

    /**
     * As {@link #RpcDispatcher(MeterRegistry)} ({@code registry} may be null), with a duplicate
     * request cache bounded by {@code cacheLimits} ({@link DuplicateRequestCacheLimits#OFF}: none).
     */
    public RpcDispatcher(MeterRegistry registry, DuplicateRequestCacheLimits cacheLimits) {
        this(registry, cacheLimits, System::nanoTime);
    }

    /** As {@link #RpcDispatcher(MeterRegistry)}, its log limits and cache on {@code nanoClock} (a test's). */
    RpcDispatcher(MeterRegistry registry, LongSupplier nanoClock) {
        this(registry, DuplicateRequestCacheLimits.DEFAULT, nanoClock);
    }

    /** As {@link #RpcDispatcher(MeterRegistry, DuplicateRequestCacheLimits)}, its log limits and cache on {@code nanoClock} (a test's). */
    RpcDispatcher(MeterRegistry registry, DuplicateRequestCacheLimits cacheLimits, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.duplicates = cacheLimits.entries() == 0 ? null : new DuplicateRequestCache(cacheLimits.entries(),
                cacheLimits.replyOctets(), cacheLimits.lifetime().toNanos());
        this.meters = RpcServerMeters.of(registry);
        this.mismatchLog = new LogRateLimit(1, 60, TimeUnit.SECONDS, nanoClock);
        this.systemErrLog = new LogRateLimit(SYSTEM_ERR_LOG_BURST, SYSTEM_ERR_LOG_INTERVAL_SECONDS, TimeUnit.SECONDS,
                nanoClock);
    }

    /** The limit on SYSTEM_ERR warnings (for tests: how many it held back). */
    LogRateLimit systemErrLog() {
        return systemErrLog;
    }

    /** Registers one program version, replacing an earlier registration of the same pair. */
    public RpcDispatcher register(RpcProgram program) {
        programs.computeIfAbsent(program.program(), p -> new ConcurrentSkipListMap<>())
                .put(Integer.toUnsignedLong(program.version()), program);
        return this;
    }

    /** Removes one program version; true if it was registered. */
    public boolean unregister(int program, int version) {
        NavigableMap<Long, RpcProgram> versions = programs.get(program);
        return versions != null && versions.remove(Integer.toUnsignedLong(version)) != null;
    }

    /**
     * Serves one call. Consumes {@code call} (released when the procedure has finished); the
     * future completes with the whole reply message, which the transport sends and releases,
     * or fails with {@link RpcProtocolException} if the message cannot be answered, or must not
     * be: the procedure read data its transport placed from a Read chunk as an item that is not
     * DDP-eligible, or stopped at it (RFC 8166 §6.1, RPC-R-073; see
     * {@link XdrDecoder#XdrDecoder(XdrMessage, ByteBuf)}), whatever the procedure made of it.
     */
    public CompletableFuture<XdrMessage> dispatch(XdrMessage call, RpcTransportInfo transport) {
        ByteBuf stream;
        try {
            stream = call.stream();
        } catch (RuntimeException e) {
            call.release();
            return CompletableFuture.failedFuture(e);
        }
        XdrDecoder in = new XdrDecoder(call, stream);
        RpcServerMeters.InProgress progress = meters.inProgress(transport.name());
        if (progress != null) {
            progress.begin();
        }
        CompletableFuture<XdrMessage> reply;
        try {
            reply = dispatch(in, transport);
        } catch (RuntimeException e) {
            // Placed data in the call header (RPC-R-073) is the transport's to answer, as below.
            reply = in.placedDataViolation() != null ? notProcessed(in) : CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            if (progress != null) {
                progress.end();
            }
            stream.release();
            call.release();
            if (e != null) {
                meters.dropped();
            }
        });
        return reply;
    }

    private CompletableFuture<XdrMessage> dispatch(XdrDecoder in, RpcTransportInfo transport) {
        if (in.remaining() < 12) {
            throw new RpcProtocolException("RPC message of " + in.remaining() + " octets is too short to answer");
        }
        int xid = in.readInt();
        int mtype = in.readEnum();
        if (mtype != RpcConstants.CALL) {
            throw new RpcProtocolException("msg_type " + mtype + " where a CALL was expected (xid 0x"
                    + Integer.toHexString(xid) + ")");
        }
        int rpcvers = in.readInt();
        if (rpcvers != RpcConstants.RPC_VERSION) {
            return reply(transport, RpcReplyHeader.Denied.rpcMismatch(xid, RpcConstants.RPC_VERSION,
                    RpcConstants.RPC_VERSION));
        }
        if (in.remaining() < 12) {
            throw new RpcProtocolException("call xid 0x" + Integer.toHexString(xid) + " truncated before its credential");
        }
        RpcCallInfo info = new RpcCallInfo(xid, in.readInt(), in.readInt(), in.readInt());

        OpaqueAuth credential;
        OpaqueAuth verifier;
        // A credential or verifier that runs into placed data is no authentication error: the
        // Call reduced an item that is not DDP-eligible and must not be answered here (RPC-R-073).
        try {
            credential = OpaqueAuth.decode(in);
        } catch (XdrException e) {
            return in.placedDataViolation() != null ? notProcessed(in)
                    : denyAuth(info, transport, AuthStat.AUTH_BADCRED, e.getMessage());
        }
        try {
            verifier = OpaqueAuth.decode(in);
        } catch (XdrException e) {
            return in.placedDataViolation() != null ? notProcessed(in)
                    : denyAuth(info, transport, AuthStat.AUTH_BADVERF, e.getMessage());
        }
        AuthSys authSys = null;
        switch (credential.flavor()) {
            case RpcConstants.AUTH_NONE -> {
                if (credential.length() != 0) {
                    return denyAuth(info, transport, AuthStat.AUTH_BADCRED, "AUTH_NONE credential with a body");
                }
            }
            case RpcConstants.AUTH_SYS -> {
                try {
                    authSys = AuthSys.decode(credential);
                } catch (XdrException e) {
                    return denyAuth(info, transport, AuthStat.AUTH_BADCRED, e.getMessage());
                }
            }
            default -> {
                return denyAuth(info, transport, AuthStat.AUTH_BADCRED,
                        "unsupported credential flavor " + credential.flavor());
            }
        }
        if (!verifier.equals(OpaqueAuth.NONE)) {
            return denyAuth(info, transport, AuthStat.AUTH_BADVERF,
                    "verifier flavor " + verifier.flavor() + " with " + verifier.length() + " octets");
        }

        NavigableMap<Long, RpcProgram> versions = programs.get(info.program());
        if (versions == null || versions.isEmpty()) {
            return accepted(transport, xid, AcceptStat.PROG_UNAVAIL);
        }
        RpcProgram program = versions.get(Integer.toUnsignedLong(info.version()));
        if (program == null) {
            Map.Entry<Long, RpcProgram> low = versions.firstEntry();
            Map.Entry<Long, RpcProgram> high = versions.lastEntry();
            if (low == null || high == null) {
                return accepted(transport, xid, AcceptStat.PROG_UNAVAIL);
            }
            logMismatch(info, transport, low.getValue().version(), high.getValue().version());
            return reply(transport, RpcReplyHeader.Accepted.progMismatch(xid, OpaqueAuth.NONE,
                    low.getValue().version(), high.getValue().version()));
        }
        RpcProcedure procedure = program.procedure(info.procedure());
        if (procedure == null) {
            return accepted(transport, xid, AcceptStat.PROC_UNAVAIL);
        }

        DuplicateRequestCache.New firstTransmission = null;
        if (duplicates != null && program.isNonIdempotent(info.procedure())) {
            DuplicateRequestCache.Key key = retransmissionKey(info, credential, transport, in);
            if (key != null) {
                DuplicateRequestCache.Lookup seen = duplicates.begin(key, nanoClock.getAsLong());
                if (seen instanceof DuplicateRequestCache.Duplicate d) {
                    return replay(d, info, transport);
                }
                firstTransmission = (DuplicateRequestCache.New) seen;
            }
        }
        CompletableFuture<XdrMessage> reply = execute(procedure, info, credential, verifier, authSys, transport, in);
        return firstTransmission == null ? reply : remember(firstTransmission, reply);
    }

    private CompletableFuture<XdrMessage> execute(RpcProcedure procedure, RpcCallInfo info, OpaqueAuth credential,
                                                  OpaqueAuth verifier, AuthSys authSys, RpcTransportInfo transport,
                                                  XdrDecoder in) {
        int xid = info.xid();
        RpcCallContext context = new RpcCallContext(info, credential, verifier, authSys, transport);
        CompletionStage<XdrMessage> results;
        try {
            results = procedure.call(context, in);
            if (results == null) {
                throw new NullPointerException("procedure returned no CompletionStage");
            }
        } catch (RuntimeException e) {
            return in.placedDataViolation() != null ? notProcessed(in) : failed(info, transport, e);
        }
        return results.toCompletableFuture().handle((message, error) -> {
            if (in.placedDataViolation() != null) {
                if (message != null) {
                    message.release();
                }
                return notProcessed(in);
            }
            if (error != null) {
                return failed(info, transport, error);
            }
            if (message == null) {
                return failed(info, transport, new NullPointerException("procedure completed without results"));
            }
            return CompletableFuture.completedFuture(XdrMessage.concat(
                    header(transport, RpcReplyHeader.Accepted.success(xid, OpaqueAuth.NONE)), message));
        }).thenCompose(f -> f);
    }

    /**
     * What identifies a retransmission of this call, or null if the transport does not know the
     * client's address. Reads nothing: the arguments stay for the procedure.
     */
    private static DuplicateRequestCache.Key retransmissionKey(RpcCallInfo info, OpaqueAuth credential,
                                                               RpcTransportInfo transport, XdrDecoder in) {
        SocketAddress remote = transport.remoteAddress();
        Object client = remote instanceof InetSocketAddress inet
                ? (inet.getAddress() != null ? inet.getAddress() : inet.getHostString())
                : remote;
        if (client == null) {
            return null;
        }
        ByteBuf args = in.buffer();
        byte[] head = new byte[Math.min(CHECKSUMMED_OCTETS, args.readableBytes())];
        args.getBytes(args.readerIndex(), head);
        CRC32C checksum = new CRC32C();
        // The credential too: another user's call with the same xid and arguments is not this one's retransmission.
        checksum.update(java.nio.ByteBuffer.allocate(4).putInt(0, credential.flavor()));
        checksum.update(credential.body());
        checksum.update(head);
        return new DuplicateRequestCache.Key(client, info.xid(), info.program(), info.version(), info.procedure(),
                args.readableBytes(), (int) checksum.getValue());
    }

    /** Keeps a copy of the first transmission's reply (if short enough) for its retransmissions. */
    private CompletableFuture<XdrMessage> remember(DuplicateRequestCache.New call, CompletableFuture<XdrMessage> reply) {
        return reply.whenComplete((message, error) -> {
            if (error != null || message.hasDdpEligiblePieces() || message.readableBytes() > duplicates.replyOctets()) {
                duplicates.abandon(call);
                return;
            }
            byte[] copy = null;
            ByteBuf stream = null;
            try {
                stream = message.stream();
                byte[] octets = new byte[stream.readableBytes()];
                stream.getBytes(stream.readerIndex(), octets);
                copy = octets;
            } catch (RuntimeException e) {
                log.debug("the reply to {} is not kept for retransmissions: {}", call.key(), e.toString());
            } finally {
                if (stream != null) {
                    stream.release();
                }
                duplicates.done(call, copy); // not kept if the copy failed: the reply still goes out
            }
        });
    }

    /** A retransmission: the first transmission's reply once it is there, or dropped if it is not kept. */
    private CompletableFuture<XdrMessage> replay(DuplicateRequestCache.Duplicate first, RpcCallInfo info,
                                                 RpcTransportInfo transport) {
        log.debug("retransmission of {} from {} ({})", info, transport.remoteAddress(),
                first.answered() ? "answered" : "in progress");
        boolean waits = !first.answered();
        CompletableFuture<XdrMessage> replayed = first.reply().thenApply(reply -> {
            if (reply == null) {
                meters.duplicate(false);
                throw new RpcDuplicateRequestException("retransmission of " + info + " from "
                        + transport.remoteAddress() + ": the first transmission's reply is not kept");
            }
            meters.duplicate(true);
            return XdrMessage.of(transport.alloc().buffer(reply.length).writeBytes(reply));
        });
        // Counted once the wait is set up: whoever sees the count (a test) may complete the first
        // transmission and find the retransmission answered by then, on its own thread.
        if (waits) {
            meters.duplicateWaits();
        }
        return replayed;
    }

    /**
     * One INFO line per minute at most, with the count of mismatches not logged since, so that a
     * client retrying a version in a loop cannot flood the log.
     */
    private void logMismatch(RpcCallInfo info, RpcTransportInfo transport, int low, int high) {
        long unlogged = mismatchLog.admit();
        if (unlogged < 0) {
            return;
        }
        log.info("PROG_MISMATCH: program {} version {} asked by {}; versions {} to {} are served{}",
                Integer.toUnsignedString(info.program()), Integer.toUnsignedString(info.version()),
                transport.remoteAddress(), Integer.toUnsignedString(low), Integer.toUnsignedString(high),
                unlogged == 0 ? "" : " (" + unlogged + " more mismatches since the last message)");
    }

    /** A call whose placed data was misused gets no reply from here: its transport answers it (RPC-R-073). */
    private static CompletableFuture<XdrMessage> notProcessed(XdrDecoder in) {
        return CompletableFuture.failedFuture(new RpcProtocolException(in.placedDataViolation()));
    }

    private CompletableFuture<XdrMessage> failed(RpcCallInfo info, RpcTransportInfo transport, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof XdrException || cause instanceof RpcGarbageArgsException) {
            log.debug("GARBAGE_ARGS for {}: {}", info, cause.getMessage());
            return accepted(transport, info.xid(), AcceptStat.GARBAGE_ARGS);
        }
        if (cause instanceof RpcProcedureUnavailableException) {
            return accepted(transport, info.xid(), AcceptStat.PROC_UNAVAIL);
        }
        if (cause instanceof RpcAuthException auth) {
            return reply(transport, new RpcReplyHeader.Denied(info.xid(), RpcConstants.AUTH_ERROR, 0, 0, auth.code()));
        }
        long held = systemErrLog.admit();
        if (held >= 0) {
            log.warn("SYSTEM_ERR for {} from {}{}", info, transport.remoteAddress(),
                    held == 0 ? "" : " (" + held + " more SYSTEM_ERR replies not warned of since the last message)",
                    cause);
        } else {
            log.debug("SYSTEM_ERR for {} from {}: {}", info, transport.remoteAddress(), cause.toString());
        }
        return accepted(transport, info.xid(), AcceptStat.SYSTEM_ERR);
    }

    private CompletableFuture<XdrMessage> denyAuth(RpcCallInfo info, RpcTransportInfo transport,
                                                          AuthStat stat, String why) {
        log.debug("AUTH_ERROR {} for {} from {}: {}", stat, info, transport.remoteAddress(), why);
        return reply(transport, RpcReplyHeader.Denied.authError(info.xid(), stat));
    }

    private CompletableFuture<XdrMessage> accepted(RpcTransportInfo transport, int xid, AcceptStat stat) {
        return reply(transport, new RpcReplyHeader.Accepted(xid, OpaqueAuth.NONE, stat, 0, 0));
    }

    private CompletableFuture<XdrMessage> reply(RpcTransportInfo transport, RpcReplyHeader header) {
        return CompletableFuture.completedFuture(header(transport, header));
    }

    private XdrMessage header(RpcTransportInfo transport, RpcReplyHeader header) {
        meters.replied(header);
        XdrEncoder out = XdrEncoder.create(transport.alloc());
        header.encode(out);
        return out.toMessage();
    }
}
