package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.internal.wire.ReadChunk;

/**
 * The Responder's half of Read chunks (RFC 8166 §3.4.5): pulls each chunk with RDMA Read into a
 * buffer of its own, then rebuilds the Call by inserting every chunk's data, in list order within a
 * chunk, at its Position in the unreduced Payload stream (RPC-R-022, RPC-R-024). A chunk may or may
 * not carry the item's roundup padding (RPC-R-026); when it does not, zero padding follows it so
 * that the items after it stay aligned.
 *
 * <p>Each chunk's data is a DDP-eligible {@link XdrPiece} of the rebuilt Call (its padding implicit),
 * so that the decoder knows where placed data lies: only a DDP-eligible item may take it, and data
 * a Requester placed elsewhere keeps the Call from being processed (RFC 8166 §6.1, RPC-R-073; see
 * {@link org.iwarp4j.oncrpc.XdrDecoder#XdrDecoder(XdrMessage, ByteBuf)}). Marking costs nothing per octet.
 */
final class CallAssembler {

    /** Never modified (the STag table copies it): one set, not one per Call. */
    private static final EnumSet<Access> LOCAL_WRITE = EnumSet.of(Access.LOCAL_WRITE);

    private CallAssembler() {
    }

    /**
     * RDMA Reads every chunk into the endpoint's {@link ReadSinks}; completes with one buffer per
     * chunk, in the order given, which the caller then owns (and releases). The sink regions are deregistered once the Reads are done.
     */
    static CompletableFuture<List<ByteBuf>> pull(RdmaEndpoint endpoint, List<ReadChunk> chunks) {
        if (chunks.size() == 1) {
            return pullOne(endpoint, chunks.get(0));
        }
        Registrations sinks = new Registrations(endpoint);
        List<ByteBuf> data = new ArrayList<>(chunks.size());
        List<CompletableFuture<Void>> reads = new ArrayList<>(chunks.size());
        try {
            for (ReadChunk chunk : chunks) {
                int length = (int) chunk.length();
                ByteBuf buffer = endpoint.readSinks().take(length);
                data.add(buffer);
                MemoryRegion region = sinks.register(buffer, LOCAL_WRITE);
                reads.add(endpoint.read(chunk.segments(), region, 0));
            }
        } catch (RuntimeException | Error e) {
            // An Error too: a sink beyond the direct memory left must fail the pull, so that the
            // caller answers for the Call and gives its place back.
            sinks.release();
            data.forEach(ByteBuf::release);
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.allOf(reads.toArray(new CompletableFuture[0])).handle((v, error) -> {
            sinks.release();
            if (error != null) {
                data.forEach(ByteBuf::release);
                throw error instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(error);
            }
            return data;
        });
    }

    /**
     * {@link #pull} of one chunk (every NFS WRITE): the same Reads, registration and outcome,
     * without the lists and the {@code allOf} that several chunks need.
     */
    private static CompletableFuture<List<ByteBuf>> pullOne(RdmaEndpoint endpoint, ReadChunk chunk) {
        ByteBuf buffer;
        try {
            buffer = endpoint.readSinks().take((int) chunk.length());
        } catch (RuntimeException | Error e) { // as in pull
            return CompletableFuture.failedFuture(e);
        }
        MemoryRegion region;
        CompletableFuture<Void> read;
        try {
            region = endpoint.register(buffer, LOCAL_WRITE);
        } catch (RuntimeException e) {
            buffer.release();
            return CompletableFuture.failedFuture(e);
        }
        try {
            read = endpoint.read(chunk.segments(), region, 0);
        } catch (RuntimeException e) {
            region.close();
            buffer.release();
            return CompletableFuture.failedFuture(e);
        }
        return read.handle((v, error) -> {
            region.close();
            if (error != null) {
                buffer.release();
                throw error instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(error);
            }
            return List.of(buffer);
        });
    }

    /**
     * The indexes of {@code chunks} in ascending order of Position, equal Positions in list order
     * (a stable insertion sort: a Call has a few chunks, mostly one, and no boxed indexes or
     * comparator are made for them).
     */
    static int[] byPosition(List<ReadChunk> chunks) {
        int[] order = new int[chunks.size()];
        for (int i = 0; i < order.length; i++) {
            long position = chunks.get(i).position();
            int j = i;
            while (j > 0 && chunks.get(order[j - 1]).position() > position) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        return order;
    }

    /**
     * The whole Call: {@code base} (the inline Payload stream or the Position-Zero chunk's data) with
     * {@code chunks} inserted. Consumes {@code base} and {@code data}.
     *
     * @throws IllegalArgumentException if a Position lies outside the stream: the header does not fit the Payload
     */
    static XdrMessage rebuild(ByteBuf base, List<ReadChunk> chunks, List<ByteBuf> data) {
        int[] order = byPosition(chunks);
        List<XdrPiece> pieces = new ArrayList<>(chunks.size() * 3 + 1);
        // By index, never List.remove(Object): ByteBuf.equals compares contents.
        boolean[] inserted = new boolean[data.size()];
        try {
            long insertedLength = 0;
            int at = 0;
            int start = base.readerIndex();
            for (int i : order) {
                long offset = chunks.get(i).position() - insertedLength;
                if (offset < at || offset > base.readableBytes()) {
                    throw new IllegalArgumentException("Read chunk Position " + chunks.get(i).position()
                            + " lies outside the Payload stream of " + (base.readableBytes() + insertedLength)
                            + " octets");
                }
                if (offset > at) {
                    pieces.add(XdrPiece.inline(base.retainedSlice(start + at, (int) offset - at)));
                }
                ByteBuf chunk = data.get(i);
                inserted[i] = true;
                int length = chunk.readableBytes();
                pieces.add(XdrPiece.ddpEligible(chunk)); // the padding, if the chunk lacks it, is implicit
                insertedLength += length + XdrMessage.padding(length);
                at = (int) offset;
            }
            if (at < base.readableBytes()) {
                pieces.add(XdrPiece.inline(base.retainedSlice(start + at, base.readableBytes() - at)));
            }
            XdrMessage call = XdrMessage.of(pieces);
            pieces = List.of();
            return call;
        } finally {
            base.release();
            for (int i = 0; i < inserted.length; i++) {
                if (!inserted[i]) {
                    data.get(i).release();
                }
            }
            pieces.forEach(p -> p.data().release());
        }
    }
}
