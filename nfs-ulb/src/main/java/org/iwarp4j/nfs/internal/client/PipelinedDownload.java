package org.iwarp4j.nfs.internal.client;

import static org.iwarp4j.nfs.internal.client.Await.await;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A whole file read with up to {@code window} READs in flight (RFC 1813 §3.3.6, RFC 8881 §18.22),
 * each of {@code readSize} octets at the next offset, until a reply says eof. The replies are taken
 * in the order they were sent, so the stream gets the file in offset order. Once the end is seen,
 * or anything fails, the READs still in flight are waited for and their data released: a reply's
 * buffer must not outlive the download.
 *
 * <p>Only eof ends the file: a server may return fewer octets than asked without being at the end
 * (RFC 1813 §3.3.6, RFC 8881 §18.22.4), so a short reply is followed by a READ of the rest of its
 * range, taken before the READs already in flight (their ranges come after it and stand). A reply
 * of no octets without eof, or of more octets than asked, is a protocol error ({@link
 * Reads#protocolError}), as Linux fails a READ that made no progress with EIO
 * ({@code nfs_readpage_retry}): every READ sent again for a range reads at least one octet more.
 */
public final class PipelinedDownload {

    /** How one NFS version sends a READ and opens its reply. */
    public interface Reads<R> {

        CompletableFuture<R> read(long offset, int count);

        /** The data of a successful reply; a failed reply is released and its status thrown. */
        ByteBuf data(R reply);

        boolean eof(R reply);

        /** Releases the reply's data. */
        void release(R reply);

        /** The error thrown for a reply that breaks the protocol, {@code what} saying how. */
        RuntimeException protocolError(String what);
    }

    /** A READ sent and not yet taken, of {@code count} octets. */
    private record Pending<R>(int count, CompletableFuture<R> reply) {
    }

    private PipelinedDownload() {
    }

    /** Reads the file into {@code out}; returns the octets read. */
    public static <R> long run(Reads<R> reads, int readSize, int window, OutputStream out) throws IOException {
        if (readSize <= 0) {
            throw new IllegalArgumentException("read size " + readSize); // no READ would ever reach the end
        }
        Deque<Pending<R>> inFlight = new ArrayDeque<>();
        long next = 0;
        long total = 0;
        boolean eof = false;
        try {
            while (!eof || !inFlight.isEmpty()) {
                while (!eof && inFlight.size() < window) {
                    inFlight.add(new Pending<>(readSize, reads.read(next, readSize)));
                    next += readSize;
                }
                Pending<R> p = inFlight.poll();
                R reply = await(p.reply());
                ByteBuf data = reads.data(reply);
                try {
                    int n = data.readableBytes();
                    boolean end = reads.eof(reply);
                    if (n > p.count() || (n == 0 && !end)) {
                        throw reads.protocolError("a READ of " + p.count() + " octets at offset " + total
                                + " answered " + n + " octets" + (end ? " and eof" : " without eof"));
                    }
                    data.readBytes(out, n);
                    total += n;
                    if (end) {
                        eof = true;
                        drain(inFlight, reads);
                    } else if (n < p.count()) {
                        // the rest of this range precedes the ranges in flight: it is the next to take
                        inFlight.addFirst(new Pending<>(p.count() - n, reads.read(total, p.count() - n)));
                    }
                } finally {
                    reads.release(reply);
                }
            }
        } finally {
            drain(inFlight, reads);
        }
        return total;
    }

    private static <R> void drain(Deque<Pending<R>> inFlight, Reads<R> reads) {
        while (!inFlight.isEmpty()) {
            try {
                reads.release(inFlight.poll().reply().join());
            } catch (CompletionException | CancellationException e) {
                // the download ended or failed already; this READ's outcome no longer matters
            }
        }
    }
}
