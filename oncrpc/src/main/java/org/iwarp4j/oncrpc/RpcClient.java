package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.util.HashedWheelTimer;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.netty.util.Timeout;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.iwarp4j.oncrpc.internal.RpcCallHeader;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An ONC RPC client over any {@link RpcClientTransport} (RFC 5531): it allocates xids, writes
 * the call header with its credential, reads the reply header, turns every unsuccessful reply
 * into an exception and enforces a timeout.
 *
 * <p>Failures complete the future with (RFC 5531 §9): {@link RpcProgramUnavailableException},
 * {@link RpcProgramMismatchException} (low, high), {@link RpcProcedureUnavailableException},
 * {@link RpcGarbageArgsException}, {@link RpcSystemErrorException}, {@link RpcMismatchException}
 * (low, high), {@link RpcAuthException} (auth_stat); locally {@link RpcTimeoutException},
 * {@link RpcTransportException}, {@link RpcProtocolException} for a malformed reply, or
 * {@link XdrException} when a results decoder fails. Thread-safe.
 */
public final class RpcClient implements AutoCloseable {

    private static final class TimerHolder {
        static final HashedWheelTimer TIMER = new HashedWheelTimer(
                new DefaultThreadFactory("oncrpc-timeout", true), 10, TimeUnit.MILLISECONDS);
    }

    private final RpcClientTransport transport;
    private final OpaqueAuth credential;
    private final long timeoutNanos;
    private final AtomicInteger nextXid = new AtomicInteger(ThreadLocalRandom.current().nextInt());

    private RpcClient(Builder builder) {
        this.transport = builder.transport;
        this.credential = builder.credential;
        this.timeoutNanos = builder.timeout.toNanos();
    }

    /** A client on {@code transport}: AUTH_NONE, 30 s timeout unless set. */
    public static Builder builder(RpcClientTransport transport) {
        return new Builder(transport);
    }

    public RpcClientTransport transport() {
        return transport;
    }

    /**
     * Calls a procedure whose arguments are already encoded.
     *
     * @param args the procedure's arguments (no header); consumed
     * @return the reply, which the caller closes
     */
    public CompletableFuture<RpcReply> call(int program, int version, int procedure, XdrMessage args) {
        RpcCallInfo info = new RpcCallInfo(nextXid.getAndIncrement(), program, version, procedure);
        XdrMessage message;
        try {
            XdrEncoder header = XdrEncoder.create(transport.alloc());
            RpcCallHeader.of(info, credential, OpaqueAuth.NONE).encode(header);
            message = XdrMessage.concat(header.toMessage(), args);
        } catch (RuntimeException e) {
            if (args.refCnt() > 0) {
                args.release();
            }
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<RpcReply> result = new CompletableFuture<>();
        CompletableFuture<XdrMessage> sent;
        try {
            sent = transport.call(info, message);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new RpcTransportException("transport " + transport.name()
                    + " refused " + info + ": " + e.getMessage(), e));
        }
        AtomicReference<RpcException> abort = new AtomicReference<>();
        Timeout timeout = TimerHolder.TIMER.newTimeout(t -> {
            String state;
            try {
                state = transport.state();
            } catch (RuntimeException e) { // the timeout must fire whatever the transport says
                state = "its state unavailable: " + e;
            }
            RpcTimeoutException timedOut = new RpcTimeoutException("no reply to " + info + " on "
                    + transport.name() + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"
                    + (state.isEmpty() ? "" : " (" + state + ")"));
            // Cancel first, so the transport has forgotten the xid when the caller sees the timeout.
            abort.set(timedOut);
            sent.cancel(false);
            result.completeExceptionally(timedOut);
        }, timeoutNanos, TimeUnit.NANOSECONDS);
        result.whenComplete((r, e) -> {
            timeout.cancel();
            if (result.isCancelled()) {
                sent.cancel(false);
            }
        });
        sent.whenComplete((reply, error) -> {
            if (error instanceof CancellationException) {
                RpcException why = abort.get();
                result.completeExceptionally(why != null ? why
                        : new RpcTransportException(info + " cancelled by transport " + transport.name()));
                return;
            }
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                result.completeExceptionally(cause instanceof RpcException ? cause
                        : new RpcTransportException(info + " failed on " + transport.name() + ": " + cause, cause));
                return;
            }
            RpcReply decoded;
            try {
                decoded = decode(info, reply);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            if (!result.complete(decoded)) {
                decoded.close();
            }
        });
        return result;
    }

    /** Calls a procedure, writing its arguments with {@code args}. */
    public CompletableFuture<RpcReply> call(int program, int version, int procedure, Consumer<XdrEncoder> args) {
        XdrEncoder encoder = XdrEncoder.create(transport.alloc());
        try {
            args.accept(encoder);
        } catch (RuntimeException e) {
            encoder.discard();
            return CompletableFuture.failedFuture(e);
        }
        return call(program, version, procedure, encoder.toMessage());
    }

    /**
     * Calls a procedure and decodes its results with {@code results}; the reply is released
     * once decoded (so {@code results} must copy or retain what it keeps). Cancelling the
     * returned future cancels the call, and a reply that arrives anyway is released.
     *
     * <p>Once {@code results} returned, the Reply must have no data left over (RFC 8166 §6.1,
     * RPC-R-074: a Write chunk returned filled that no result took, {@link
     * XdrDecoder#resultsDone()}); if it has, the call fails with that {@link XdrException} and the
     * decoded value is given back: released if it is {@link ReferenceCounted}, closed if it is
     * {@link AutoCloseable}. A value holding buffers in another way needs {@link #call(int, int,
     * int, Consumer, Function, Consumer)}.
     */
    public <T> CompletableFuture<T> call(int program, int version, int procedure, Consumer<XdrEncoder> args,
                                         Function<XdrDecoder, T> results) {
        return call(program, version, procedure, args, results, RpcClient::discard);
    }

    /**
     * As {@link #call(int, int, int, Consumer, Function)}, with {@code discard} giving back a
     * decoded value that the call does not deliver (the Reply had data left over).
     */
    public <T> CompletableFuture<T> call(int program, int version, int procedure, Consumer<XdrEncoder> args,
                                         Function<XdrDecoder, T> results, Consumer<? super T> discard) {
        CompletableFuture<RpcReply> call = call(program, version, procedure, args);
        CompletableFuture<T> decoded = new CompletableFuture<>();
        // Not thenApply: a cancelled dependent stage never runs its function, so the reply would leak.
        decoded.whenComplete((value, error) -> {
            if (decoded.isCancelled()) {
                call.cancel(false);
            }
        });
        call.whenComplete((reply, error) -> {
            if (error != null) {
                decoded.completeExceptionally(error instanceof CompletionException ? error
                        : new CompletionException(error));
                return;
            }
            T value;
            try (reply) {
                value = results.apply(reply.results());
                try {
                    reply.results().resultsDone();
                } catch (XdrException e) {
                    try {
                        discard.accept(value);
                    } catch (RuntimeException d) {
                        e.addSuppressed(d);
                    }
                    throw e;
                }
            } catch (RuntimeException e) {
                decoded.completeExceptionally(new CompletionException(e));
                return;
            }
            // Completed only once the reply is released: what the caller did not keep (say, RDMA
            // memory a result was read from and copied out of) is free before the caller's next Call.
            decoded.complete(value);
        });
        return decoded;
    }

    private static void discard(Object value) {
        if (value instanceof ReferenceCounted counted) {
            ReferenceCountUtil.safeRelease(counted);
        } else if (value instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing a result the call does not deliver failed", e);
            }
        }
    }

    private static RpcReply decode(RpcCallInfo info, XdrMessage reply) {
        ByteBuf stream;
        try {
            stream = reply.stream();
        } catch (RuntimeException e) {
            reply.release();
            throw e;
        }
        boolean ok = false;
        try {
            XdrDecoder in = new XdrDecoder(stream, reply.reducedItems());
            RpcReplyHeader header = RpcReplyHeader.decode(in);
            if (header.xid() != info.xid()) {
                throw new RpcProtocolException("reply xid 0x" + Integer.toHexString(header.xid())
                        + " for call " + info);
            }
            if (header instanceof RpcReplyHeader.Accepted accepted) {
                switch (accepted.stat()) {
                    case SUCCESS -> {
                        ok = true;
                        return new RpcReply(info.xid(), accepted.verifier(), reply, stream, in);
                    }
                    case PROG_UNAVAIL -> throw new RpcProgramUnavailableException("PROG_UNAVAIL for " + info);
                    case PROG_MISMATCH -> throw new RpcProgramMismatchException("PROG_MISMATCH for " + info,
                            accepted.low(), accepted.high());
                    case PROC_UNAVAIL -> throw new RpcProcedureUnavailableException("PROC_UNAVAIL for " + info);
                    case GARBAGE_ARGS -> throw new RpcGarbageArgsException("GARBAGE_ARGS for " + info);
                    case SYSTEM_ERR -> throw new RpcSystemErrorException("SYSTEM_ERR for " + info);
                    default -> throw new RpcProtocolException("accept_stat " + accepted.stat() + " for " + info);
                }
            }
            RpcReplyHeader.Denied denied = (RpcReplyHeader.Denied) header;
            if (denied.rejectStat() == RpcConstants.RPC_MISMATCH) {
                throw new RpcMismatchException("RPC_MISMATCH for " + info, denied.low(), denied.high());
            }
            throw new RpcAuthException("AUTH_ERROR for " + info, denied.authStat());
        } finally {
            if (!ok) {
                stream.release();
                reply.release();
            }
        }
    }

    /** Closes the transport; outstanding calls fail. */
    @Override
    public void close() {
        transport.close();
    }

    /** Options of an {@link RpcClient}. */
    public static final class Builder {
        private final RpcClientTransport transport;
        private OpaqueAuth credential = OpaqueAuth.NONE;
        private Duration timeout = Duration.ofSeconds(30);

        private Builder(RpcClientTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
        }

        /** The credential of every call (default AUTH_NONE); the verifier is AUTH_NONE. */
        public Builder credential(OpaqueAuth credential) {
            this.credential = Objects.requireNonNull(credential, "credential");
            return this;
        }

        /** AUTH_SYS with these parameters. */
        public Builder credential(AuthSys credential) {
            return credential(credential.toOpaqueAuth());
        }

        /** How long a call waits for its reply (default 30 s). */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        public RpcClient build() {
            return new RpcClient(this);
        }
    }
}
