package org.iwarp4j.nfs.internal;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Orders the server's path-based file-system calls against its own changes to the export's
 * namespace. The server acts on paths (java.nio has no {@code openat} for every call it needs, nor
 * an inode to act on), and the kernel follows a symbolic link in any directory of a path: a client
 * that could RENAME a directory away and put a SYMLINK to {@code /etc} in its place between a
 * handle's resolution and the call made on its path would have the server act on a file outside
 * the export. So every operation that resolves a handle and acts on its path holds this lock
 * shared from the resolution to its last call on the path, and every operation that adds, removes
 * or moves a name holds it exclusively. A resolution then stays true while it is used, and what a
 * path names can change only behind the server's back (a local process; see docs/limits.md).
 *
 * <p>READ, WRITE and COMMIT do not hold it across their I/O: {@link OpenFiles} opens a channel
 * under it after checking that the path still names the handle's inode, and a channel once open is
 * the inode's whatever happens to its names, so a slow disk holds up no change of a name.
 *
 * <p>{@link #generation()} counts the exclusive holds, so that a resolution kept from one
 * operation to the next (NFSv4's PUTFH, then SETATTR) is used only if no name changed in between.
 */
public final class NamespaceLock {

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile long generation;

    /** A hold of the lock, released by {@link #close()}. */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    private final Hold sharedHold = () -> lock.readLock().unlock();
    private final Hold exclusiveHold = () -> lock.writeLock().unlock();

    /** Holds the lock shared: no name of the export changes (through this server) until closed. */
    public Hold shared() {
        lock.readLock().lock();
        return sharedHold;
    }

    /** Holds the lock exclusively, to add, remove or move names. */
    public Hold exclusive() {
        lock.writeLock().lock();
        generation++; // only the holder writes it
        return exclusiveHold;
    }

    /** How many exclusive holds have begun: equal readings mean no name changed in between. */
    public long generation() {
        return generation;
    }

    /** Whether any thread holds the lock, shared or exclusively (for tests). */
    public boolean held() {
        return lock.isWriteLocked() || lock.getReadLockCount() > 0;
    }

    /** Threads waiting for the lock (for tests: an operation that changes names waits). */
    public int waiting() {
        return lock.getQueueLength();
    }
}
