package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.iwarp4j.nfs.v3.Nfs3Status;

/**
 * Open file channels by inode, so that a stream of READs or WRITEs does not open and close the
 * file each time (NFSv3 has no OPEN). At most {@code capacity} channels stay open; the least
 * recently used one is closed first. Closing loses nothing: written data stays in the page cache
 * until COMMIT (which forces through any channel of the file) or the kernel writes it back.
 *
 * <p>A channel is opened only on the inode the handle names: under the {@link NamespaceLock}, the
 * path must still name that inode (device and inode number) when it is opened, so a directory on
 * the way replaced by a symbolic link to elsewhere since the handle was resolved (a rename and a
 * SYMLINK by another client) cannot give the caller a channel on a file outside the export. A path
 * that names another inode now is NFS3ERR_JUKEBOX (NFS4ERR_DELAY): the client retries, and its
 * retry resolves the handle again.
 */
public final class OpenFiles implements AutoCloseable {

    private final int capacity;
    private final NamespaceLock namespace;
    private final LinkedHashMap<Long, Entry> channels = new LinkedHashMap<>(16, 0.75f, true);

    private record Entry(Path path, FileChannel channel, boolean writable) {
    }

    public OpenFiles(int capacity, NamespaceLock namespace) {
        this.capacity = capacity;
        this.namespace = namespace;
    }

    /**
     * A channel on the file {@code file} (a handle's resolution) at its path, opened for writing
     * if asked; NFS3ERR_JUKEBOX if the path names another inode now.
     */
    public FileChannel channel(FileHandles.Resolved file, boolean write) throws IOException {
        long ino = file.stat().ino();
        Path path = file.path();
        synchronized (this) {
            Entry e = channels.get(ino);
            if (e != null && usable(e, path, write)) {
                return e.channel;
            }
        }
        // The namespace lock before this object's monitor, never inside it: an operation holding
        // the lock exclusively calls forget().
        FileChannel channel;
        try (NamespaceLock.Hold names = namespace.shared()) {
            FileStat now = FileStat.of(path);
            if (now.ino() != ino || now.dev() != file.stat().dev()) {
                throw new NfsException(Nfs3Status.NFS3ERR_JUKEBOX, path + " names another inode now");
            }
            channel = write
                    ? FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        }
        synchronized (this) {
            Entry e = channels.get(ino);
            if (e != null && usable(e, path, write)) {
                closeQuietly(channel); // another request opened it meanwhile
                return e.channel;
            }
            if (e != null) {
                channels.remove(ino);
                closeQuietly(e.channel);
            }
            channels.put(ino, new Entry(path, channel, write));
            evict();
            return channel;
        }
    }

    private static boolean usable(Entry e, Path path, boolean write) {
        return e.path.equals(path) && e.channel.isOpen() && (e.writable || !write);
    }

    /** Closes the channel of an inode (it was removed or renamed). */
    public synchronized void forget(long ino) {
        Entry e = channels.remove(ino);
        if (e != null) {
            closeQuietly(e.channel);
        }
    }

    private void evict() {
        Iterator<Map.Entry<Long, Entry>> it = channels.entrySet().iterator();
        while (channels.size() > capacity && it.hasNext()) {
            closeQuietly(it.next().getValue().channel);
            it.remove();
        }
    }

    private static void closeQuietly(FileChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing a channel we only read or wrote through loses nothing
        }
    }

    @Override
    public synchronized void close() {
        channels.values().forEach(e -> closeQuietly(e.channel));
        channels.clear();
    }
}
