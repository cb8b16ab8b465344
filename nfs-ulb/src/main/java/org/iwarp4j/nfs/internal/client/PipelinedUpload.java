package org.iwarp4j.nfs.internal.client;

import static org.iwarp4j.nfs.internal.client.Await.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A whole file written as UNSTABLE WRITEs of {@code writeSize} octets, up to {@code window} in
 * flight, with a COMMIT every {@link #COMMIT_INTERVAL} octets and at the end (RFC 1813 §3.3.7 and
 * §3.3.21, RFC 8881 §18.32 and §18.3).
 *
 * <p>The octets written since the last COMMIT are kept until it succeeds: a WRITE or COMMIT whose
 * write verifier differs from the one before means the server restarted and may have lost
 * uncommitted data, so those octets are written again FILE_SYNC (RFC 1813 §3.3.7, RFC 8881
 * §18.32.3).
 */
public final class PipelinedUpload<W> {

    /** Data is COMMITted at least this often. */
    static final long COMMIT_INTERVAL = 32L << 20;

    /** How one NFS version writes and commits the file being uploaded. */
    public interface Writes<W> {

        /** Sends an UNSTABLE WRITE of {@code data} (which it consumes) at {@code offset}. */
        CompletableFuture<W> writeUnstable(long offset, ByteBuf data);

        /** The write verifier of a WRITE's reply; a failed reply throws its status. */
        long verifier(W reply);

        /** COMMITs everything from {@code offset} on and returns the verifier; a failure throws. */
        long commit(long offset);

        /** WRITEs {@code data} (which it consumes) FILE_SYNC at {@code offset} and waits; a failure throws. */
        void writeFileSync(long offset, ByteBuf data);
    }

    private final Writes<W> writes;
    private final ByteBufAllocator alloc;
    private final int writeSize;
    private final int window;
    private final List<ByteBuf> uncommitted = new ArrayList<>();
    private final Deque<CompletableFuture<W>> inFlight = new ArrayDeque<>();
    private long uncommittedStart;
    private long offset;
    private Long verifier;
    private boolean verifierChanged;

    private PipelinedUpload(Writes<W> writes, ByteBufAllocator alloc, int writeSize, int window) {
        if (writeSize <= 0) {
            throw new IllegalArgumentException("write size " + writeSize); // nothing would ever be written
        }
        this.writes = writes;
        this.alloc = alloc;
        this.writeSize = writeSize;
        this.window = window;
    }

    /** Writes everything from {@code in}, chunks taken from {@code alloc}; returns the octets written. */
    public static <W> long run(Writes<W> writes, ByteBufAllocator alloc, int writeSize, int window, InputStream in)
            throws IOException {
        return new PipelinedUpload<>(writes, alloc, writeSize, window).run(in);
    }

    private long run(InputStream in) throws IOException {
        try {
            while (true) {
                ByteBuf chunk = alloc.buffer(writeSize);
                try {
                    while (chunk.isWritable() && chunk.writeBytes(in, chunk.writableBytes()) > 0) {
                        // fill the chunk: a stream may return fewer octets than asked before its end
                    }
                } catch (IOException | RuntimeException e) {
                    chunk.release();
                    throw e;
                }
                if (!chunk.isReadable()) {
                    chunk.release();
                    break;
                }
                uncommitted.add(chunk);
                inFlight.add(writes.writeUnstable(offset, chunk.retainedDuplicate()));
                offset += chunk.readableBytes();
                while (inFlight.size() >= window) {
                    collect(inFlight.poll());
                }
                if (offset - uncommittedStart >= COMMIT_INTERVAL) {
                    commit();
                }
            }
            commit();
            return offset;
        } finally {
            while (!inFlight.isEmpty()) {
                try {
                    inFlight.poll().join();
                } catch (CompletionException | CancellationException e) {
                    // failing already
                }
            }
            uncommitted.forEach(ByteBuf::release);
        }
    }

    private void collect(CompletableFuture<W> f) {
        note(writes.verifier(await(f)));
    }

    private void note(long v) {
        if (verifier != null && verifier != v) {
            verifierChanged = true;
        }
        verifier = v;
    }

    private void commit() {
        while (!inFlight.isEmpty()) {
            collect(inFlight.poll());
        }
        if (offset == uncommittedStart) {
            return;
        }
        note(writes.commit(uncommittedStart));
        if (verifierChanged) {
            long at = uncommittedStart;
            for (ByteBuf chunk : uncommitted) {
                writes.writeFileSync(at, chunk.retainedDuplicate());
                at += chunk.readableBytes();
            }
            verifierChanged = false;
        }
        uncommitted.forEach(ByteBuf::release);
        uncommitted.clear();
        uncommittedStart = offset;
    }
}
