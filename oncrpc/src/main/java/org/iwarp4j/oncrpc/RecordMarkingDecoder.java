package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import org.iwarp4j.oncrpc.internal.AssemblyBudget;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.iwarp4j.oncrpc.internal.SliceSafeCumulator;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Reassembles records from a TCP byte stream with record marking (RFC 5531 §11): every
 * fragment starts with a 4-octet record mark whose high bit says "last fragment of the record"
 * and whose low 31 bits are the fragment's length. Emits one {@link ByteBuf} per record (one
 * RPC message); the next handler releases it.
 *
 * <p>A record of one fragment, the usual case, is emitted without a copy, as a retained slice of
 * the input; the fragments of a longer record are copied into one buffer as they complete. A
 * record's octets never change once it is emitted, whichever thread reads it: the decoder never
 * writes into an input buffer that an emitted record still shares ({@link SliceSafeCumulator});
 * Netty's default cumulator does, and with Netty 4.2's adaptive allocator a record read on another
 * thread meanwhile could then be overwritten (docs/oncrpc.md, "Records are slices").
 * Reassembly is bounded: a record whose fragments add up to more than {@code maxRecordSize}
 * octets is refused as soon as a record mark announces it — before its octets are buffered —
 * with a {@link TooLongFrameException}, and the connection is closed (a peer that sends it
 * cannot be resynchronised). Zero-length fragments are accepted.
 *
 * <p>Reassembly is also bounded in time when {@code maxRecordTime} is positive: a record whose
 * first octet (of its first record mark) has arrived must be complete within that time, else the
 * connection is closed and a {@link RecordTimeoutException} is fired. Without it a peer could keep
 * a connection and its partial record alive forever by sending one octet now and then, which no
 * idle timeout notices. The clock restarts with every record that completes.
 *
 * <p>A server's decoders may share an {@link AssemblyBudget} (the server's bound on the octets of
 * all records not yet taken up): a record longer than {@value #SMALL_RECORD} octets reserves its
 * octets when its record mark announces them, before they are buffered (all it may grow to if that
 * fragment is not its last: {@code maxRecordSize}, the rest given back when it completes), and
 * gives them back once
 * the server took the record up ({@link #takenUp}: its call started, or it was a reply to a
 * backward call), not when it was emitted, so that a record decoded and waiting for the server's
 * budget of calls still counts. A reservation that must wait stops the connection's reading until
 * it is granted.
 */
public final class RecordMarkingDecoder extends ByteToMessageDecoder implements AssemblyBudget.Account {

    /** Records up to this long reserve nothing: each connection holds at most one being assembled. */
    static final int SMALL_RECORD = 64 * 1024;

    private final int maxRecordSize;
    private final long maxRecordNanos;
    private final SliceSafeCumulator cumulator = new SliceSafeCumulator();
    private ByteBuf record;
    private boolean failed;
    private ScheduledFuture<?> recordTimer;
    private final AssemblyBudget assembly;
    /** Set before any reservation, read under the budget's lock. */
    private Object client;
    /** Told whether the assembly budget lets the connection be read; on the event loop. */
    private final Consumer<Boolean> reading;
    private ChannelHandlerContext context;
    /** Octets reserved for the record being assembled. */
    private long reserved;
    /** Octets reserved for records emitted and not yet taken up, by record (identity). */
    private final java.util.Map<ByteBuf, Long> emitted = new java.util.IdentityHashMap<>();
    /** Octets of a reservation that waits; 0 if none does. */
    private long asked;
    private boolean removed;

    /** @param maxRecordSize largest record accepted, in octets (excluding record marks); no time bound */
    public RecordMarkingDecoder(int maxRecordSize) {
        this(maxRecordSize, Duration.ZERO);
    }

    /**
     * @param maxRecordSize largest record accepted, in octets (excluding record marks)
     * @param maxRecordTime longest time from a record's first octet to its last; zero for no bound
     */
    public RecordMarkingDecoder(int maxRecordSize, Duration maxRecordTime) {
        this(maxRecordSize, maxRecordTime, null, r -> { });
    }

    /**
     * A server's decoder whose records longer than {@value #SMALL_RECORD} octets reserve their
     * octets in {@code assembly}; {@code reading} is told (on the event loop) whether the
     * connection may be read as far as the reservations go.
     */
    RecordMarkingDecoder(int maxRecordSize, Duration maxRecordTime, AssemblyBudget assembly,
                         Consumer<Boolean> reading) {
        this.assembly = assembly;
        this.reading = reading;
        if (maxRecordSize < 0) {
            throw new IllegalArgumentException("maxRecordSize < 0");
        }
        if (maxRecordTime.isNegative()) {
            throw new IllegalArgumentException("maxRecordTime < 0");
        }
        this.maxRecordSize = maxRecordSize;
        this.maxRecordNanos = maxRecordTime.toNanos();
        setCumulator(cumulator);
    }

    public int maxRecordSize() {
        return maxRecordSize;
    }

    /** The time bound of one record; zero if there is none. */
    public Duration maxRecordTime() {
        return Duration.ofNanos(maxRecordNanos);
    }

    /** Fired (and the connection closed) when a record took longer than the decoder's time bound. */
    public static final class RecordTimeoutException extends DecoderException {
        private static final long serialVersionUID = 1L;

        RecordTimeoutException(String message) {
            super(message);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.context = ctx;
        this.client = ServerCallBudget.clientOf(ctx.channel().remoteAddress());
        super.handlerAdded(ctx);
    }

    /** The client whose share of the assembly budget this connection's records take: its peer's address. */
    @Override
    public Object client() {
        return client;
    }

    /**
     * The server took {@code record}, one this decoder emitted, up (on the event loop): its
     * reservation, if it had one, is given back.
     */
    void takenUp(ByteBuf record) {
        Long octets = emitted.remove(record);
        if (octets != null) {
            assembly.release(this, octets);
        }
    }

    /** The reservation that waited was granted: on the event loop, the connection is read again. */
    @Override
    public void reservationGranted() {
        try {
            context.executor().execute(this::granted);
        } catch (RejectedExecutionException e) {
            assembly.release(this, takeAsked()); // the event loop is gone with the server
        }
    }

    private void granted() {
        if (removed) {
            assembly.release(this, takeAsked());
            return;
        }
        reserved += takeAsked();
        reading.accept(true);
        if (actualReadableBytes() > 0) {
            // What arrived while the reservation waited is decoded now, not at the next read,
            // which may never come if the client has sent the whole record already.
            try {
                channelRead(context, Unpooled.EMPTY_BUFFER);
            } catch (Exception e) {
                context.fireExceptionCaught(e);
            }
        }
    }

    private long takeAsked() {
        long a = asked;
        asked = 0;
        return a;
    }

    /**
     * The handler to put before this decoder (nearer the socket) in a server's pipeline: it holds
     * back reads while a reservation waits. Turning auto-read off is not enough: a decoder that
     * decoded nothing asks for the next read itself (Netty's {@code ByteToMessageDecoder} does, so
     * that a connection without auto-read still completes its record), and the record would then
     * be read whole, its octets in memory before its reservation was granted.
     */
    ChannelOutboundHandlerAdapter readGate() {
        return new ChannelOutboundHandlerAdapter() {
            @Override
            public void read(ChannelHandlerContext ctx) {
                if (asked == 0) {
                    ctx.read();
                }
            }
        };
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        boolean completed = false;
        try {
            completed = decodeRecords(ctx, in, out);
        } finally {
            if (!failed) {
                timeRecord(ctx, completed, in.isReadable() || record != null);
            }
        }
    }

    /** Emits the records complete in {@code in}; true if at least one was. */
    private boolean decodeRecords(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        boolean completed = false;
        cumulator.expect(0);
        while (in.readableBytes() >= RpcConstants.RECORD_MARK_LENGTH && asked == 0) {
            int mark = in.getInt(in.readerIndex());
            boolean last = (mark & RpcConstants.LAST_FRAGMENT) != 0;
            int length = mark & RpcConstants.FRAGMENT_LENGTH_MASK;
            long recordSoFar = record == null ? 0 : record.readableBytes();
            if (recordSoFar + length > maxRecordSize) {
                fail(ctx, in, recordSoFar + length);
                return completed;
            }
            boolean here = in.readableBytes() >= RpcConstants.RECORD_MARK_LENGTH + length;
            if (!reserve(recordSoFar + length, last, here)) {
                return completed; // not read meanwhile: nothing more is buffered
            }
            if (!here) {
                cumulator.expect(RpcConstants.RECORD_MARK_LENGTH + length);
                return completed;
            }
            in.skipBytes(RpcConstants.RECORD_MARK_LENGTH);
            if (last && record == null) {
                // No copy: the record shares the input's memory, which SliceSafeCumulator never
                // writes into again while the record (or anything derived from it) is alive.
                ByteBuf whole = in.readRetainedSlice(length);
                out.add(whole);
                recordEmitted(whole);
                completed = true;
                continue;
            }
            if (record == null) {
                record = ctx.alloc().buffer(Math.min(Math.max(length * 2, 256), maxRecordSize), maxRecordSize);
            }
            record.writeBytes(in, length);
            if (last) {
                out.add(record);
                recordEmitted(record);
                record = null;
                completed = true;
            }
        }
        return completed;
    }

    /**
     * Makes sure the record, {@code octets} long so far with the fragment whose mark was just read
     * ({@code last} or not, {@code here} whole in memory or not), is covered in the assembly
     * budget before more of it is buffered; false if its reservation waits (the connection is then
     * not read until it is granted).
     *
     * <p>A record reserves once, when it first passes {@value #SMALL_RECORD} octets, as much as it
     * can grow to: its length at its last fragment, else {@code maxRecordSize}, of which what it
     * did not use is given back when it completes. So no later fragment needs more, and a record
     * that holds octets never waits: only records that hold nothing wait, on records that were
     * granted, which complete. (Reserving a non-last fragment's own length and counting later
     * fragments without waiting let a client pass every bound with a second fragment.) The last
     * fragment of a record whose octets are here whole is counted without waiting: they are in
     * memory already, and a connection whose calls wait is not read further anyway. A non-last
     * fragment that is here whole may wait: what arrived in one read is not counted meanwhile, as
     * a record of up to {@value #SMALL_RECORD} octets is not.
     */
    private boolean reserve(long octets, boolean last, boolean here) {
        if (assembly == null || octets <= SMALL_RECORD || octets <= reserved) {
            return true;
        }
        if (asked > 0) {
            return false;
        }
        long want = (last ? octets : maxRecordSize) - reserved;
        if (last && here) {
            assembly.take(this, want);
        } else if (!assembly.reserve(this, want)) {
            asked = want;
            reading.accept(false);
            return false;
        }
        reserved += want;
        return true;
    }

    /** The record is complete: it keeps its own length of what it reserved until it is taken up. */
    private void recordEmitted(ByteBuf whole) {
        if (reserved > 0) {
            long kept = Math.min(reserved, whole.readableBytes());
            if (reserved > kept) {
                assembly.release(this, reserved - kept);
            }
            emitted.put(whole, kept);
            reserved = 0;
        }
    }

    /**
     * Starts the clock when a record is partly here and no clock runs; a record that completed
     * stops it (what is left, if anything, is the next record, which started just now).
     */
    private void timeRecord(ChannelHandlerContext ctx, boolean completed, boolean partial) {
        if (maxRecordNanos == 0) {
            return;
        }
        if (completed || !partial || !ctx.channel().isActive()) {
            cancelTimer();
        }
        if (partial && recordTimer == null && ctx.channel().isActive()) {
            recordTimer = ctx.executor().schedule(() -> recordTimedOut(ctx), maxRecordNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void recordTimedOut(ChannelHandlerContext ctx) {
        recordTimer = null;
        if (failed || !ctx.channel().isActive()) {
            return;
        }
        failed = true;
        releaseRecord();
        // Told before the close, so that whoever counts it has done so when the peer sees the close.
        ctx.fireExceptionCaught(new RecordTimeoutException("RPC record not complete within " + maxRecordTime()
                + " of its first octet; connection closed"));
        ctx.close();
    }

    private void cancelTimer() {
        if (recordTimer != null) {
            recordTimer.cancel(false);
            recordTimer = null;
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, long announced) {
        failed = true;
        cancelTimer();
        in.skipBytes(in.readableBytes());
        releaseRecord();
        // The exception before the close: handlers after this one learn why while the connection
        // is still open (the server counts the closure before its client can see it closed).
        ctx.fireExceptionCaught(new TooLongFrameException("RPC record of at least " + announced
                + " octets exceeds the limit of " + maxRecordSize + " (RFC 5531 §11 record marking); connection closed"));
        ctx.close();
    }

    private void releaseRecord() {
        if (record != null) {
            record.release();
            record = null;
        }
        long given = reserved;
        for (long octets : emitted.values()) {
            given += octets;
        }
        reserved = 0;
        emitted.clear();
        if (given > 0) {
            assembly.release(this, given);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelTimer();
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cancelTimer();
        releaseRecord();
        removed = true;
        if (assembly != null && asked > 0) {
            assembly.forget(this); // a grant that raced with this comes to granted(), which gives it back
        }
    }
}
