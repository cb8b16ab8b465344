package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The server's write verifier (RFC 1813 §3.3.7 and §3.3.21; NFSv4.1's writeverf, RFC 8881 §18.32.3
 * and §18.3.3, is the same value), and the writes and forces of file data whose failure changes it.
 *
 * <p>A client keeps the data of an UNSTABLE WRITE until a COMMIT answers the verifier its WRITEs
 * were answered with; any other verifier tells it the data may be lost and must be written again.
 * The verifier is random at start, so a restart changes it, and takes a new random value whenever
 * a write or a force of file data fails, as knfsd's {@code nfsd_reset_write_verifier} does. Linux
 * reports a write-back error once per open file description, and all clients of a file share one
 * description ({@link OpenFiles}): the COMMIT that meets the error is only one of the clients
 * whose data it lost, and the others' COMMITs then succeed on the same descriptor. Answering them
 * with a new verifier makes every client resend its unstable data.
 *
 * <p>The forces of one file are serialised (on one of {@link #STRIPES} locks, chosen by inode)
 * together with the verifier they answer and the reset their failure makes. Otherwise a COMMIT
 * whose fsync returned just after another one's consumed the error — on the same descriptor, or on
 * one opened after the error was seen, which Linux does not tell either — could read the verifier
 * before the other reset it. The kernel serialises forces of one file largely anyway.
 */
public final class WriteVerifier {

    /** How file data is written and forced: the file system, or a test's failures. */
    interface FileIo {
        FileIo FILE_SYSTEM = new FileIo() {
            @Override
            public int write(FileChannel channel, ByteBuffer data, long position) throws IOException {
                return channel.write(data, position);
            }

            @Override
            public void force(FileChannel channel, boolean metaData) throws IOException {
                channel.force(metaData);
            }
        };

        int write(FileChannel channel, ByteBuffer data, long position) throws IOException;

        void force(FileChannel channel, boolean metaData) throws IOException;
    }

    /** Locks that forces of one file share; a power of two. Files that share one only wait for each other. */
    static final int STRIPES = 64;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final AtomicLong current = new AtomicLong(RANDOM.nextLong());
    private final Object[] locks = new Object[STRIPES];
    /** Failed forces per stripe since the start: a stable WRITE learns whether one came during it. */
    private final AtomicLongArray failedForces = new AtomicLongArray(STRIPES);
    private volatile FileIo io = FileIo.FILE_SYSTEM;

    public WriteVerifier() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    /** The verifier now: what a WRITE answers, read before its data is written. */
    public long current() {
        return current.get();
    }

    /**
     * Writes some of {@code data} at {@code position} (a positional write: {@link
     * FileChannel#write(ByteBuffer, long)}). A failure resets the verifier (knfsd resets on any
     * failed write but EAGAIN; this server has none). A {@link ClosedChannelException} does not:
     * the channel was closed under the write, which the caller redoes on a fresh one, and a
     * write reports no write-back error that another request could miss.
     */
    public int write(FileChannel channel, ByteBuffer data, long position) throws IOException {
        try {
            return io.write(channel, data, position);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            reset();
            throw e;
        }
    }

    /**
     * Forces the file through {@code channel}, holding the file's lock, and returns the verifier
     * that answers for the data written to it before: the one read under the lock before the
     * force, so after any reset a failed force of the same file made. A failure resets it — also an
     * {@link java.nio.channels.AsynchronousCloseException}: the channel was closed during the force,
     * and Java then reports that instead of the force's own error, which the closed descriptor has
     * consumed. Only a plain {@link ClosedChannelException}, a channel closed before the force
     * began, leaves it as it is: no fsync ran.
     */
    public long force(FileChannel channel, long ino, boolean metaData) throws IOException {
        int stripe = stripe(ino);
        synchronized (locks[stripe]) {
            long verifier = current.get();
            try {
                io.force(channel, metaData);
                return verifier;
            } catch (IOException | RuntimeException e) {
                if (e.getClass() != ClosedChannelException.class) {
                    failedForces.incrementAndGet(stripe);
                    reset();
                }
                throw e;
            }
        }
    }

    /**
     * Failed forces of files sharing this inode's lock, since the start. A stable WRITE (DATA_SYNC,
     * FILE_SYNC) reads it before writing and after forcing: if it changed, a force in between may
     * have consumed the error of writing back its data, and its own force then succeeded without
     * the data on disk, so it must not answer that the data is stable (knfsd checks the file's
     * write-back errors since the write began the same way, {@code filemap_check_wb_err}).
     */
    public long failedForces(long ino) {
        return failedForces.get(stripe(ino));
    }

    private static int stripe(long ino) {
        return Long.hashCode(ino * 0x9E3779B97F4A7C15L) & (STRIPES - 1);
    }

    /** A new random verifier, never the one it replaces. */
    private void reset() {
        current.updateAndGet(old -> {
            long next;
            do {
                next = RANDOM.nextLong();
            } while (next == old);
            return next;
        });
    }

    /** How data is written and forced from now on (a test seam: failures). */
    void io(FileIo io) {
        this.io = io;
    }
}
