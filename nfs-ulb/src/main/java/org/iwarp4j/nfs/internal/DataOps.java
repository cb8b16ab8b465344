package org.iwarp4j.nfs.internal;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.WccAttr;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.nfs.v3.Write3Res;

/**
 * READ, WRITE and COMMIT (RFC 1813 §3.3.6, 3.3.7, 3.3.21) through positional I/O on cached file
 * channels. An UNSTABLE WRITE is left in the page cache and answered UNSTABLE; DATA_SYNC and
 * FILE_SYNC force the data (and for FILE_SYNC the metadata) before the reply; COMMIT forces the
 * file. Every reply carries the server's write verifier, which a failed write or force changes
 * ({@link WriteVerifier}).
 */
public final class DataOps {

    private final Nfs3Context ctx;

    public DataOps(Nfs3Context ctx) {
        this.ctx = ctx;
    }

    /**
     * READ of at most rtmax octets (RFC 1813 §3.3.6) into a direct buffer, which the result then
     * owns (the file channel reads straight into it: no copy besides the kernel's). The caller needs
     * read permission (or execute, or to own the file: {@link Permissions#requireRead}).
     */
    public Read3Res read(Read3Args args, Caller caller) {
        FileHandles.Resolved r;
        try {
            r = ctx.resolve(args.file(), caller);
        } catch (RuntimeException e) {
            return Read3Res.fail(NfsErrors.statusOf(e), null);
        }
        return read(r, args.offset(), args.count(), caller);
    }

    /**
     * READ of a handle the caller has resolved already ({@link Nfs3Context#resolve}, which also
     * admitted the caller). NFSv4 uses it: its PUTFH resolves the handle, and resolving it again
     * for the READ that follows cost a stat and a {@code toRealPath} of the parent each time, so a
     * COMPOUND of SEQUENCE, PUTFH, READ made three resolutions where an NFSv3 READ makes one.
     */
    public Read3Res read(FileHandles.Resolved r, long offset, long requested, Caller caller) {
        try {
            checkRegular(r);
            Permissions.requireRead(caller, r.stat(), r.path());
            int count = (int) Math.min(requested, ctx.limits().maxRead());
            ByteBuf data = ctx.readBuffer(count); // kept memory, see Nfs3Context
            try {
                if (offset < 0) {
                    throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "offset beyond 2^63");
                }
                long size = readFully(r, data, offset, count);
                boolean eof = offset + data.readableBytes() >= size;
                return new Read3Res(Nfs3Status.NFS3_OK, ctx.attributes(r), data.readableBytes(), eof, data);
            } catch (IOException | RuntimeException e) {
                data.release();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            return Read3Res.fail(NfsErrors.statusOf(e), ctx.attributes(r));
        }
    }

    /** Reads into {@code data} and answers the file's size after (of the channel: the handle's inode). */
    private long readFully(FileHandles.Resolved r, ByteBuf data, long offset, int count) throws IOException {
        return onChannel(r, false, channel -> {
            // a second attempt goes on from what the first one read
            while (data.readableBytes() < count) {
                int n = data.writeBytes(channel, offset + data.readableBytes(), count - data.readableBytes());
                if (n < 0) {
                    break;
                }
            }
            return channel.size();
        });
    }

    /** I/O on a file's channel; the channel may be closed under it ({@link #onChannel}). */
    private interface ChannelIo<T> {
        T run(FileChannel channel) throws IOException;
    }

    /**
     * Runs {@code io} on the file's cached channel, and once more on a fresh one if another
     * request closed that channel meanwhile ({@link OpenFiles} closes one to make room, or to
     * reopen it writable, while other workers may be between {@code channel()} and their I/O). A
     * second closure is an error: the channel cache is then turning over faster than one call.
     */
    private <T> T onChannel(FileHandles.Resolved r, boolean write, ChannelIo<T> io) throws IOException {
        for (int attempt = 0; ; attempt++) {
            FileChannel channel = ctx.openFiles().channel(r, write);
            try {
                return io.run(channel);
            } catch (ClosedChannelException e) {
                if (attempt > 0) {
                    throw e;
                }
            }
        }
    }

    /**
     * WRITE; consumes the arguments' data. NFS3ERR_ROFS on a read-only export; the caller needs
     * write permission or to own the file (knfsd's owner override). A caller that is not root
     * loses the file's setuid and setgid bits, as a local unprivileged writer would
     * ({@link #removePrivileges}); the reply's post-op attributes show the new mode.
     */
    public Write3Res write(Write3Args args, Caller caller) {
        FileHandles.Resolved r;
        try {
            r = ctx.resolve(args.file(), caller);
        } catch (RuntimeException e) {
            args.release();
            return Write3Res.fail(NfsErrors.statusOf(e), WccData.EMPTY);
        }
        return write(r, args, caller);
    }

    /**
     * WRITE to a handle the caller has resolved already, as {@link #read(FileHandles.Resolved, long,
     * long, Caller)} (NFSv4's PUTFH, WRITE); {@code args.file()} is not looked at. Consumes the data.
     */
    public Write3Res write(FileHandles.Resolved r, Write3Args args, Caller caller) {
        WccAttr before = null;
        try {
            before = r.stat().toWccAttr();
            checkRegular(r);
            ctx.requireWritable();
            Permissions.requireOrOwner(caller, r.stat(), Permissions.WRITE, r.path());
            if (args.offset() < 0) {
                throw new NfsException(Nfs3Status.NFS3ERR_FBIG, "offset beyond 2^63");
            }
            boolean cleared = args.data().isReadable() && removePrivileges(r, caller);
            long verifier = writeFully(r, args.data(), args.offset(), args.stable(), cleared);
            return new Write3Res(Nfs3Status.NFS3_OK, ctx.wcc(before, r), args.count(), args.stable(),
                    verifier);
        } catch (IOException | RuntimeException e) {
            return Write3Res.fail(NfsErrors.statusOf(e), ctx.wcc(before, r));
        } finally {
            args.release();
        }
    }

    /**
     * Before a non-empty WRITE by a caller that is not root: clears setuid, and setgid with group
     * execute, as the kernel does for an unprivileged writer ({@link Permissions#modeAfterWrite}:
     * the server writes with privileges the caller does not have). Before the data, as Linux's
     * file_remove_privs, so that no one can run the file setuid with the caller's data in it. Only
     * when the resolution's mode has those bits (the common case costs nothing); then, as WRITE
     * does not hold the {@link NamespaceLock}, under it shared and after checking that the path
     * still names the handle's inode, so that the chmod cannot reach another file.
     */
    private boolean removePrivileges(FileHandles.Resolved r, Caller caller) throws IOException {
        if (Permissions.modeAfterWrite(caller, r.stat()) == (r.stat().mode() & 07777)) {
            return false;
        }
        try (NamespaceLock.Hold names = ctx.namespace().shared()) {
            FileStat now = FileStat.of(r.path());
            if (now.ino() != r.stat().ino() || now.dev() != r.stat().dev()) {
                throw new NfsException(Nfs3Status.NFS3ERR_JUKEBOX, r.path() + " names another inode now");
            }
            return AttributeOps.removePrivileges(new FileHandles.Resolved(r.path(), now), caller);
        }
    }

    /**
     * Writes the data and forces it as {@code stable} asks; returns the write verifier to answer,
     * the one current before the data was written (a reset after that makes the client's COMMIT
     * answer a verifier other than this one, so the client writes again).
     */
    private long writeFully(FileHandles.Resolved r, ByteBuf data, long offset, StableHow stable,
                            boolean modeChanged) throws IOException {
        WriteVerifier verifier = ctx.verifier();
        long ino = r.stat().ino();
        return onChannel(r, true, channel -> {
            long answer = verifier.current();
            if (modeChanged) {
                // the cleared setuid/setgid is metadata made stable before the reply, as SETATTR's
                // (MetadataCommits), and here before the new data can reach the disk: a crash
                // then never leaves the caller's data in a file still setuid
                verifier.force(channel, ino, true);
            }
            long failedForces = verifier.failedForces(ino);
            long position = offset;
            for (ByteBuffer b : data.nioBuffers(data.readerIndex(), data.readableBytes())) {
                while (b.hasRemaining()) {
                    position += verifier.write(channel, b, position);
                }
            }
            if (stable != StableHow.UNSTABLE) {
                verifier.force(channel, ino, stable == StableHow.FILE_SYNC);
                if (verifier.failedForces(ino) != failedForces) {
                    // another force of the file failed since this data was written: it may have
                    // been this data's write-back, whose error this force then did not see
                    throw new IOException("a force of " + r.path() + " failed during this stable WRITE");
                }
            }
            return answer;
        });
    }

    /**
     * COMMIT (RFC 1813 §3.3.21): as WRITE, a writable export and write permission (or ownership).
     * Forces the whole file through its cached channel, through a fresh one if that was closed
     * under it: fsync through any descriptor of the file writes all its dirty pages. The verifier
     * answered is the one current when the force began, under the file's lock ({@link
     * WriteVerifier#force}); a failed force answers NFS3ERR_IO and gives every later reply a new one.
     */
    public Commit3Res commit(Commit3Args args, Caller caller) {
        FileHandles.Resolved r = null;
        WccAttr before = null;
        try {
            r = ctx.resolve(args.file(), caller);
            before = r.stat().toWccAttr();
            checkRegular(r);
            ctx.requireWritable();
            Permissions.requireOrOwner(caller, r.stat(), Permissions.WRITE, r.path());
            long ino = r.stat().ino();
            long verifier = onChannel(r, false, channel -> ctx.verifier().force(channel, ino, true));
            return new Commit3Res(Nfs3Status.NFS3_OK, ctx.wcc(before, r), verifier);
        } catch (IOException | RuntimeException e) {
            return new Commit3Res(NfsErrors.statusOf(e), r == null ? WccData.EMPTY : ctx.wcc(before, r), 0);
        }
    }

    private static void checkRegular(FileHandles.Resolved r) {
        if (r.stat().type() == Ftype3.NF3DIR) {
            throw new NfsException(Nfs3Status.NFS3ERR_ISDIR, "a directory: " + r.path());
        }
        if (r.stat().type() != Ftype3.NF3REG) {
            throw new NfsException(Nfs3Status.NFS3ERR_INVAL, "not a regular file: " + r.path());
        }
    }
}
