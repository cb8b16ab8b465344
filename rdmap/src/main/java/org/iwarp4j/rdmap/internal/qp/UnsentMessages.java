package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.ArrayDeque;
import org.iwarp4j.ddp.DdpSegmenter;

/**
 * Messages of one queue pair that are not yet written whole, in the order they were given: a Read
 * Response (RFC 5040 §5.2.2) whose segments are made only as the socket takes what went before,
 * and every message given after it, which must not overtake it: messages go to DDP in the order
 * given (RDMAP-R-044, RFC 5040 §5.5 #13) and Read Responses never interleave (RDMAP-R-017). This
 * is siw's IRQ processing: one Read Response in progress, its next segment framed when the socket
 * has room.
 *
 * <p>Why: a Read Request is 52 octets on the wire and may ask for a whole region. Segmented at
 * once, the response of a 16 MiB region over a 1500-octet MTU link is some 11,700 FPDUs that MPA
 * copies into fresh direct memory (each ULPDU is under {@code MpaFrameEncoder.CONTIGUOUS_LIMIT}),
 * held for as long as a peer that stopped reading keeps the connection: IRD × 16 MiB per
 * connection for IRD × 52 octets of input; IRD bounds the Read Requests (RDMAP-R-048), not the
 * memory their responses take. Made one segment at a time, a Read
 * Response queues at most about the channel's high water mark plus one FPDU. Only a Read Response
 * whose segments MPA copies is paced: segments MPA sends in place are slices of the registered
 * region, no new memory, and are written at once as any message (pacing them cost RDMA READ on
 * loopback a fifth of its bandwidth).
 *
 * <p>Event loop only. A message is either paced (a Read Response) or written whole as soon as it
 * reaches the head; nothing is paced while the queue is empty of paced messages, so Sends and
 * RDMA Writes take the same path as before (the queue is empty, {@link Transmitter} writes them
 * directly).
 */
final class UnsentMessages {

    private final ChannelHandlerContext ctx;
    private final ArrayDeque<Message> queue = new ArrayDeque<>();
    /** Guards against a write's listener (a failed write, run at once) writing again from inside. */
    private boolean writing;

    UnsentMessages(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /**
     * Queues a message made by {@code segmenter} from {@code payload} (released once its last
     * segment is made), its last segment's write completing {@code promise}; {@code limit} is the
     * octets past the channel's low water mark above which its next segment waits ({@code -1}: none,
     * written whole once at the head).
     */
    void add(DdpSegmenter segmenter, ByteBuf payload, ChannelPromise promise, long limit) {
        queue.add(new Message(segmenter, payload, promise, limit));
    }

    /** Queues {@code ulpdu}, a ULPDU already made (a Terminate), written whole once at the head. */
    void add(ByteBuf ulpdu, ChannelPromise promise) {
        queue.add(new Message(null, ulpdu, promise, -1));
    }

    /**
     * Writes, in order, what the channel takes now: whole messages, and the segments of a paced
     * one while the octets queued in the channel stay within its limit. Returns whether anything
     * was written (the caller flushes). When a paced message stops, the channel is not writable
     * (its limit counts from the low water mark), so its turning writable again, on which the
     * caller calls this again, is sure to come, or the connection's end.
     */
    boolean writeWhatFits() {
        if (writing) {
            return false;
        }
        writing = true;
        boolean wrote = false;
        try {
            // The head is looked up for every segment: a write that fails at once may drop the
            // queue (the connection closed) from inside ctx.write.
            for (Message m; (m = queue.peek()) != null; ) {
                if (m.limit >= 0 && ctx.channel().bytesBeforeWritable() > m.limit) {
                    break;
                }
                wrote = true;
                if (m.segmenter == null) {
                    queue.poll();
                    ctx.write(m.payload, m.promise);
                    continue;
                }
                Object segment = m.segmenter.nextUlpdu();
                if (m.segmenter.hasNext()) {
                    ctx.write(segment, ctx.voidPromise());
                } else {
                    queue.poll();
                    m.payload.release(); // the last segment holds its own slice
                    ctx.write(segment, m.promise);
                }
            }
        } finally {
            writing = false;
        }
        return wrote;
    }

    /** The connection is gone: releases every unsent message and fails its promise with {@code cause}. */
    void drop(Throwable cause) {
        for (Message m; (m = queue.poll()) != null; ) {
            m.payload.release();
            m.promise.tryFailure(cause);
        }
    }

    private static final class Message {
        final DdpSegmenter segmenter;
        final ByteBuf payload;
        final ChannelPromise promise;
        final long limit;

        Message(DdpSegmenter segmenter, ByteBuf payload, ChannelPromise promise, long limit) {
            this.segmenter = segmenter;
            this.payload = payload;
            this.promise = promise;
            this.limit = limit;
        }
    }
}
