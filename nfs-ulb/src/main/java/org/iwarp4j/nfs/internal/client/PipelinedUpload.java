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
 *
 * <p>A server may write fewer octets than a WRITE carried (RFC 1813 §3.3.7, RFC 8881 §18.32.3:
 * count is what it wrote): the rest of the chunk is sent again from where it stopped, as Linux does
 * ({@code nfs_writeback_result}), until the chunk is written. The rest goes UNSTABLE like the
 * chunk (Linux sends it FILE_SYNC): it stays among the uncommitted octets, so the COMMIT and the
 * verifier check cover it. A WRITE that wrote nothing, or claims more than it was sent, is a
 * protocol error ({@link Writes#protocolError}), as Linux fails a zero-octet write with EIO: a
 * server answering 0 for ever cannot keep the client sending, and every WRITE sent again writes
 * at least one octet more.
 */
public final class PipelinedUpload<W> {

    /** Data is COMMITted at least this often. */
    static final long COMMIT_INTERVAL = 32L << 20;

    /** How one NFS version writes and commits the file being uploaded. */
    public interface Writes<W> {

        /** Sends an UNSTABLE WRITE of {@code data} (which it consumes) at {@code offset}. */
        CompletableFuture<W> writeUnstable(long offset, ByteBuf data);

        /** The octets a WRITE's reply says were written and its write verifier; a failed reply throws its status. */
        Written written(W reply);

        /** COMMITs everything from {@code offset} on and returns the verifier; a failure throws. */
        long commit(long offset);

        /**
         * WRITEs {@code data} (which it consumes) FILE_SYNC at {@code offset} and waits; returns the
         * octets the server wrote; a failure throws.
         */
        long writeFileSync(long offset, ByteBuf data);

        /** The error thrown for a reply that breaks the protocol, {@code what} saying how. */
        RuntimeException protocolError(String what);
    }

    /** What a WRITE's reply says: the octets written (its count) and the write verifier. */
    public record Written(long count, long verifier) {
    }

    /** A WRITE sent and not yet collected: the chunk it carries, written at {@code offset}. */
    private record Pending<W>(long offset, ByteBuf chunk, CompletableFuture<W> reply) {
    }

    /** One way to send a WRITE and wait for it; returns the octets written. */
    @FunctionalInterface
    private interface Write {
        long write(long offset, ByteBuf data);
    }

    private final Writes<W> writes;
    private final ByteBufAllocator alloc;
    private final int writeSize;
    private final int window;
    private final List<ByteBuf> uncommitted = new ArrayList<>();
    private final Deque<Pending<W>> inFlight = new ArrayDeque<>();
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
                inFlight.add(new Pending<>(offset, chunk, writes.writeUnstable(offset, chunk.retainedDuplicate())));
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
                    inFlight.poll().reply().join();
                } catch (CompletionException | CancellationException e) {
                    // failing already
                }
            }
            uncommitted.forEach(ByteBuf::release);
        }
    }

    private void collect(Pending<W> p) {
        long written = checked(unstableWritten(p.reply()), p.chunk().readableBytes(), p.offset());
        writeFrom(p.offset(), p.chunk(), written, this::writeUnstable);
    }

    private long writeUnstable(long at, ByteBuf data) {
        return unstableWritten(writes.writeUnstable(at, data));
    }

    private long unstableWritten(CompletableFuture<W> f) {
        Written w = writes.written(await(f));
        note(w.verifier());
        return w.count();
    }

    /** Writes {@code chunk}, which goes at {@code at}, from its octet {@code done} on: what short WRITEs left. */
    private void writeFrom(long at, ByteBuf chunk, long done, Write write) {
        int length = chunk.readableBytes();
        while (done < length) {
            int rest = length - (int) done;
            long from = at + done;
            done += checked(write.write(from, chunk.retainedSlice(chunk.readerIndex() + (int) done, rest)), rest, from);
        }
    }

    /** The count a WRITE of {@code sent} octets at {@code at} was answered with, unless it is 0 or more than sent. */
    private long checked(long written, long sent, long at) {
        if (written == 0 || written > sent) {
            throw writes.protocolError("a WRITE of " + sent + " octets at offset " + at + " answered count " + written);
        }
        return written;
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
                writeFrom(at, chunk, 0, writes::writeFileSync);
                at += chunk.readableBytes();
            }
            verifierChanged = false;
        }
        uncommitted.forEach(ByteBuf::release);
        uncommitted.clear();
        uncommittedStart = offset;
    }
}
