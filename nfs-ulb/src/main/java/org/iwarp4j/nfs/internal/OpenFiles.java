package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Open file channels by inode, so that a stream of READs or WRITEs does not open and close the
 * file each time (NFSv3 has no OPEN). At most {@code capacity} channels stay open; the least
 * recently used one is closed first. Closing loses nothing: written data stays in the page cache
 * until COMMIT (which forces through any channel of the file) or the kernel writes it back.
 */
public final class OpenFiles implements AutoCloseable {

    private final int capacity;
    private final LinkedHashMap<Long, Entry> channels = new LinkedHashMap<>(16, 0.75f, true);

    private record Entry(Path path, FileChannel channel, boolean writable) {
    }

    public OpenFiles(int capacity) {
        this.capacity = capacity;
    }

    /** A channel on the file with this inode at {@code path}, opened for writing if asked. */
    public synchronized FileChannel channel(long ino, Path path, boolean write) throws IOException {
        Entry e = channels.get(ino);
        if (e != null && e.path.equals(path) && e.channel.isOpen() && (e.writable || !write)) {
            return e.channel;
        }
        if (e != null) {
            channels.remove(ino);
            e.channel.close();
        }
        FileChannel channel = write
                ? FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                : FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        channels.put(ino, new Entry(path, channel, write));
        evict();
        return channel;
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
