package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Snapshots of directories in cookie order, shared by NFSv3 READDIR/READDIRPLUS (RFC 1813
 * §3.3.16, §3.3.17) and NFSv4 READDIR (RFC 8881 §18.23), so that a paged listing reads and sorts
 * the directory once and each further page costs a binary search and the page itself.
 *
 * <p>Why a cache: knfsd continues a listing at the file system's own offset cookie (seekdir), so
 * each READDIR costs the page it returns. java.nio cannot seek in a directory stream, and a
 * stream's order is not stable, so without a snapshot every page would list (and sort) the whole
 * directory again. A snapshot holds the names in the order of their cookies, which are hashes of
 * the names ({@link #cookieOf}); a cookie therefore means "after this name in hash order" in
 * <em>any</em> version of the directory, and a listing can continue in another snapshot than the
 * one it began in.
 *
 * <p>The cookie verifier names the snapshot a listing reads: a call with cookie 0 (a new
 * listing) always reads the directory afresh, as the only reliable sign of change a Java server has
 * (mtime) is too coarse — a file created within the same clock tick as a listing must appear in
 * the next one; when the fresh read equals the newest snapshot of that directory, that snapshot
 * and its verifier are kept. A call with another cookie and the verifier of a snapshot still held
 * continues in that snapshot, even when the directory has changed since: POSIX leaves it open
 * whether entries added or removed after opendir are returned, and entries that vanished are left
 * out by the callers, which stat each entry they return. A verifier no snapshot has (evicted, or
 * from before a restart) gets the directory read again once and the listing continues after the
 * cookie there; the server never answers NFS3ERR_BAD_COOKIE or NFS4ERR_BAD_COOKIE for a changed
 * directory, since a name-hash cookie stays meaningful (RFC 1813 §3.3.16 and RFC 8881 §18.23.4
 * allow but do not require it; knfsd never compares a verifier with the directory either: its
 * NFSv4 READDIR answers zero, its NFSv3 READDIR echoes the client's).
 *
 * <p>Bounds: snapshots are evicted least recently used while more than {@code maxNames} names
 * are held in all of them together; a directory with more names than that is never cached, and
 * each of its pages reads it whole. A call that finds more than {@link #MAX_VANISHED} entries of its
 * snapshot gone reads the directory again ({@link #reread}), so a page never stats more than that
 * many names it cannot return. What stays unbounded is the first page: reading a directory
 * costs time and transient memory proportional to its size, as any design without seekdir must.
 */
public final class DirectoryListings {

    /** Names held in all snapshots together by default: about 17 MiB for names of a dozen characters. */
    public static final int DEFAULT_MAX_NAMES = 1 << 18;

    /** Entries of a snapshot found gone in one call past which the directory is read again. */
    public static final int MAX_VANISHED = 128;

    private final int maxNames;
    /** Access-ordered, so that the eldest is the least recently used; guarded by {@code this}. */
    private final LinkedHashMap<Key, Listing> snapshots = new LinkedHashMap<>(16, 0.75f, true);
    /** The latest snapshot read of each directory still in {@link #snapshots}; guarded by {@code this}. */
    private final Map<DirKey, Listing> newest = new HashMap<>();
    /** Names in {@link #snapshots}; guarded by {@code this}. */
    private long held;
    /** Random per server start, so that a verifier from before a restart is unlikely to name a snapshot. */
    private long nextVerifier = new SecureRandom().nextLong();
    private final AtomicLong namesRead = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();

    public DirectoryListings() {
        this(DEFAULT_MAX_NAMES);
    }

    /** @param maxNames names held in all snapshots together at most (0: no snapshot is kept) */
    public DirectoryListings(int maxNames) {
        if (maxNames < 0) {
            throw new IllegalArgumentException("maxNames < 0: " + maxNames);
        }
        this.maxNames = maxNames;
    }

    private record DirKey(long dev, long ino) {
    }

    private record Key(DirKey dir, long verifier) {
    }

    /** One directory's names (without "." and "..") in ascending cookie order, and its verifier. */
    public static final class Listing {
        private final DirKey dir;
        private final long verifier;
        private final String[] names;
        private final long[] cookies;

        private Listing(DirKey dir, long verifier, String[] names, long[] cookies) {
            this.dir = dir;
            this.verifier = verifier;
            this.names = names;
            this.cookies = cookies;
        }

        /** The cookie verifier to answer with; never 0, which is the one a new listing sends. */
        public long verifier() {
            return verifier;
        }

        public int size() {
            return names.length;
        }

        public String name(int i) {
            return names[i];
        }

        public long cookie(int i) {
            return cookies[i];
        }

        /**
         * The index of the first entry whose cookie is above {@code cookie}: a binary search, so a
         * page costs no more than the entries it returns. Cookies lie in [3, 2^63).
         */
        public int after(long cookie) {
            int lo = 0;
            int hi = cookies.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (Long.compareUnsigned(cookies[mid], cookie) <= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /**
     * The snapshot a READDIR with {@code cookie} and {@code verifier} reads: for cookie 0 the
     * directory as it is now; otherwise the snapshot the verifier names if it is still held, else
     * the directory as it is now.
     *
     * @param dir the directory
     * @param stat its attributes (device and inode identify it)
     */
    public Listing listing(Path dir, FileStat stat, long cookie, long verifier) throws IOException {
        DirKey key = new DirKey(stat.dev(), stat.ino());
        if (cookie != 0) {
            synchronized (this) {
                Listing held = snapshots.get(new Key(key, verifier));
                if (held != null) {
                    return held;
                }
            }
        }
        return read(dir, key);
    }

    /**
     * The directory read again because {@code stale} names many entries that are gone: the stale
     * snapshot is dropped, so that a listing still holding its verifier is moved to the new one
     * (once) rather than skipping the same vanished names on every call.
     */
    public Listing reread(Path dir, FileStat stat, Listing stale) throws IOException {
        synchronized (this) {
            Key k = new Key(stale.dir, stale.verifier);
            if (snapshots.remove(k, stale)) {
                held -= stale.names.length;
                newest.remove(stale.dir, stale);
            }
        }
        return read(dir, new DirKey(stat.dev(), stat.ino()));
    }

    private Listing read(Path dir, DirKey key) throws IOException {
        reads.incrementAndGet();
        List<String> read = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                read.add(p.getFileName().toString());
            }
        }
        namesRead.addAndGet(read.size());
        long[] order = new long[read.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = cookieOf(read.get(i));
        }
        Integer[] index = new Integer[order.length];
        for (int i = 0; i < index.length; i++) {
            index[i] = i;
        }
        Arrays.sort(index, (a, b) -> {
            int c = Long.compare(order[a], order[b]);
            return c != 0 ? c : read.get(a).compareTo(read.get(b));
        });
        String[] names = new String[index.length];
        long[] cookies = new long[index.length];
        for (int i = 0; i < index.length; i++) {
            names[i] = read.get(index[i]);
            cookies[i] = order[index[i]];
        }
        synchronized (this) {
            Listing latest = newest.get(key);
            if (latest != null && Arrays.equals(latest.names, names)) {
                snapshots.get(new Key(key, latest.verifier)); // now the most recently used
                return latest;
            }
            long verifier = nextVerifier++;
            if (verifier == 0) {
                verifier = nextVerifier++;
            }
            Listing l = new Listing(key, verifier, names, cookies);
            if (names.length <= maxNames) {
                snapshots.put(new Key(key, verifier), l);
                newest.put(key, l);
                held += names.length;
                evict();
            }
            return l;
        }
    }

    private void evict() {
        Iterator<Map.Entry<Key, Listing>> it = snapshots.entrySet().iterator();
        while (held > maxNames && it.hasNext()) {
            Listing l = it.next().getValue();
            it.remove();
            held -= l.names.length;
            newest.remove(l.dir, l);
        }
    }

    /** Names read from directories so far (a test seam: the work done is counted, not timed). */
    public long namesRead() {
        return namesRead.get();
    }

    /** Directories read so far (a test seam). */
    public long reads() {
        return reads.get();
    }

    /** Names held in snapshots now (a test seam). */
    public synchronized long namesHeld() {
        return held;
    }

    /** Snapshots held now (a test seam). */
    public synchronized int snapshotsHeld() {
        return snapshots.size();
    }

    /** The most names held at once. */
    public int maxNames() {
        return maxNames;
    }

    /** FNV-1a over the name's UTF-8 octets, in [3, 2^63). */
    public static long cookieOf(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h >>>= 1;
        return h < 3 ? h + 3 : h;
    }
}
