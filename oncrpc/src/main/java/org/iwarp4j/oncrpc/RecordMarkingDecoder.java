package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;

import java.util.List;

/**
 * Reassembles records from a TCP byte stream with record marking (RFC 5531 §11): every
 * fragment starts with a 4-octet record mark whose high bit says "last fragment of the record"
 * and whose low 31 bits are the fragment's length. Emits one {@link ByteBuf} per record (one
 * RPC message); the next handler releases it.
 *
 * <p>A record of one fragment, the usual case, is emitted as a slice of the input without a
 * copy; the fragments of a longer record are copied into one buffer as they complete.
 * Reassembly is bounded: a record whose fragments add up to more than {@code maxRecordSize}
 * octets is refused as soon as a record mark announces it — before its octets are buffered —
 * with a {@link TooLongFrameException}, and the connection is closed (a peer that sends it
 * cannot be resynchronised). Zero-length fragments are accepted.
 */
public final class RecordMarkingDecoder extends ByteToMessageDecoder {

    private final int maxRecordSize;
    private ByteBuf record;
    private boolean failed;

    /** @param maxRecordSize largest record accepted, in octets (excluding record marks) */
    public RecordMarkingDecoder(int maxRecordSize) {
        if (maxRecordSize < 0) {
            throw new IllegalArgumentException("maxRecordSize < 0");
        }
        this.maxRecordSize = maxRecordSize;
    }

    public int maxRecordSize() {
        return maxRecordSize;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= RpcConstants.RECORD_MARK_LENGTH) {
            int mark = in.getInt(in.readerIndex());
            boolean last = (mark & RpcConstants.LAST_FRAGMENT) != 0;
            int length = mark & RpcConstants.FRAGMENT_LENGTH_MASK;
            long recordSoFar = record == null ? 0 : record.readableBytes();
            if (recordSoFar + length > maxRecordSize) {
                fail(ctx, in, recordSoFar + length);
                return;
            }
            if (in.readableBytes() < RpcConstants.RECORD_MARK_LENGTH + length) {
                return;
            }
            in.skipBytes(RpcConstants.RECORD_MARK_LENGTH);
            if (last && record == null) {
                out.add(in.readRetainedSlice(length));
                continue;
            }
            if (record == null) {
                record = ctx.alloc().buffer(Math.min(Math.max(length * 2, 256), maxRecordSize), maxRecordSize);
            }
            record.writeBytes(in, length);
            if (last) {
                out.add(record);
                record = null;
            }
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, long announced) {
        failed = true;
        in.skipBytes(in.readableBytes());
        releaseRecord();
        ctx.close();
        throw new TooLongFrameException("RPC record of at least " + announced + " octets exceeds the limit of "
                + maxRecordSize + " (RFC 5531 §11 record marking); connection closed");
    }

    private void releaseRecord() {
        if (record != null) {
            record.release();
            record = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseRecord();
    }
}
