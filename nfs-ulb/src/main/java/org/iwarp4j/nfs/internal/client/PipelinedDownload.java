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
 * each of {@code readSize} octets at the next offset, until a reply says eof or comes back short.
 * The replies are taken in the order they were sent, so the stream gets the file in offset order.
 * Once the end is seen, or anything fails, the READs still in flight are waited for and their data
 * released: a reply's buffer must not outlive the download.
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
    }

    private PipelinedDownload() {
    }

    /** Reads the file into {@code out}; returns the octets read. */
    public static <R> long run(Reads<R> reads, int readSize, int window, OutputStream out) throws IOException {
        if (readSize <= 0) {
            throw new IllegalArgumentException("read size " + readSize); // no READ would ever reach the end
        }
        Deque<CompletableFuture<R>> inFlight = new ArrayDeque<>();
        long next = 0;
        long total = 0;
        boolean eof = false;
        try {
            while (!eof || !inFlight.isEmpty()) {
                while (!eof && inFlight.size() < window) {
                    inFlight.add(reads.read(next, readSize));
                    next += readSize;
                }
                R reply = await(inFlight.poll());
                ByteBuf data = reads.data(reply);
                try {
                    int n = data.readableBytes();
                    data.readBytes(out, n);
                    total += n;
                    if (reads.eof(reply) || n < readSize) {
                        eof = true;
                        drain(inFlight, reads);
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

    private static <R> void drain(Deque<CompletableFuture<R>> inFlight, Reads<R> reads) {
        while (!inFlight.isEmpty()) {
            try {
                reads.release(inFlight.poll().join());
            } catch (CompletionException | CancellationException e) {
                // the download ended or failed already; this READ's outcome no longer matters
            }
        }
    }
}
