package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

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
 * <p>The cookie verifier names the snapshot a listing reads. A call with another cookie than 0 and
 * the verifier of a snapshot still held continues in that snapshot, even when the directory has
 * changed since: POSIX leaves it open whether entries added or removed after opendir are returned,
 * and entries that vanished are left out by the callers, which stat each entry they return. A new
 * listing (cookie 0), or a verifier no snapshot has (evicted, from before a restart, or made up),
 * gets the directory's newest snapshot if the directory has not changed since it was read, else
 * the directory is read again and the listing continues after the cookie there. The server never
 * answers NFS3ERR_BAD_COOKIE or NFS4ERR_BAD_COOKIE for a changed directory, since a name-hash
 * cookie stays meaningful (RFC 1813 §3.3.16 and RFC 8881 §18.23.4 allow but do not require it;
 * knfsd never compares a verifier with the directory either: its NFSv4 READDIR answers zero, its
 * NFSv3 READDIR echoes the client's).
 *
 * <p>"Not changed" is decided as git decides that an indexed file is clean: adding, removing or
 * renaming a name sets the directory's mtime and ctime to the clock's time, so a snapshot read
 * after the directory's times were already {@link #SETTLED_AFTER} old, and whose directory still
 * shows the same times (and device and inode), lists the names the directory has now. A snapshot
 * read while the times were younger may have missed a change made within the same clock tick
 * (coarse kernel clocks, file systems with 2-second times), so it is not reused for a new listing:
 * the directory is read again, and that read, once the times have settled, is. The assumption is
 * that the file system stamps times from this machine's clock, which local file systems do; an
 * export on a network file system whose server's clock runs behind can turn the reuse off
 * ({@code reuseUnchanged} false), and then every new listing reads the directory.
 *
 * <p>Bounds: snapshots are evicted least recently used while more than {@code maxNames} names
 * are held in all of them together; a directory with more names than that is never cached, and
 * each of its pages reads it whole. A call that finds more than {@link #MAX_VANISHED} entries of its
 * snapshot gone reads the directory again ({@link #reread}), so a page never stats more than that
 * many names it cannot return. A new listing of an unchanged directory whose snapshot is held costs
 * a stat and its page; what stays unbounded is a listing of a directory that changed (or has no
 * snapshot): reading a directory costs time and transient memory proportional to its size, as any
 * design without seekdir must.
 */
public final class DirectoryListings {

    /** Names held in all snapshots together by default: about 17 MiB for names of a dozen characters. */
    public static final int DEFAULT_MAX_NAMES = 1 << 18;

    /** Entries of a snapshot found gone in one call past which the directory is read again. */
    public static final int MAX_VANISHED = 128;

    /**
     * How old a directory's mtime and ctime must be when a snapshot is read for the snapshot to
     * stand for the directory while they stay the same: above the coarsest time stamps in use (FAT
     * keeps mtime in 2-second steps) plus a kernel clock tick.
     */
    public static final long SETTLED_AFTER = TimeUnit.SECONDS.toNanos(3);

    private final int maxNames;
    private final boolean reuseUnchanged;
    private final LongSupplier wallClockNanos;
    /** Access-ordered, so that the eldest is the least recently used; guarded by {@code this}. */
    private final LinkedHashMap<Key, Listing> snapshots = new LinkedHashMap<>(16, 0.75f, true);
    /** The latest snapshot read of each directory still in {@link #snapshots}; guarded by {@code this}. */
    private final Map<DirKey, Listing> newest = new HashMap<>();
    /** Names in {@link #snapshots}; guarded by {@code this}. */
    private long held;
    /** Random per server start, so that a verifier from before a restart is unlikely to name a snapshot. */
    private long nextVerifier = new SecureRandom().nextLong();
    private final AtomicLong namesRead = new AtomicLong();
    private final java.util.function.ToLongFunction<String> cookies;
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong reuses = new AtomicLong();

    public DirectoryListings() {
        this(DEFAULT_MAX_NAMES);
    }

    /** @param maxNames names held in all snapshots together at most (0: no snapshot is kept) */
    public DirectoryListings(int maxNames) {
        this(maxNames, true);
    }

    /**
     * @param maxNames names held in all snapshots together at most (0: no snapshot is kept)
     * @param reuseUnchanged whether a new listing of a directory whose times have not changed since
     *        its snapshot was read reuses the snapshot (else every new listing reads the directory)
     */
    public DirectoryListings(int maxNames, boolean reuseUnchanged) {
        this(maxNames, reuseUnchanged, DirectoryListings::wallClockNanos);
    }

    /**
     * As above, with the clock that file times are compared with, in nanoseconds since the epoch
     * (a test seam: a clock ahead makes every directory's times settled).
     */
    public DirectoryListings(int maxNames, boolean reuseUnchanged, LongSupplier wallClockNanos) {
        this(maxNames, reuseUnchanged, wallClockNanos, DirectoryListings::cookieOf);
    }

    /**
     * As above, with the names' cookies made by {@code cookies} instead of {@link #cookieOf} (a
     * test seam: names whose cookies collide, which a client would have to search for).
     */
    public DirectoryListings(int maxNames, boolean reuseUnchanged, LongSupplier wallClockNanos,
                             java.util.function.ToLongFunction<String> cookies) {
        if (maxNames < 0) {
            throw new IllegalArgumentException("maxNames < 0: " + maxNames);
        }
        this.maxNames = maxNames;
        this.reuseUnchanged = reuseUnchanged;
        this.wallClockNanos = wallClockNanos;
        this.cookies = cookies;
    }

    private static long wallClockNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private record DirKey(long dev, long ino) {
    }

    /** The directory's times when a snapshot was read: a name added, removed or renamed changes both. */
    private record Stamp(long mtime, long ctime) {
        static Stamp of(FileStat stat) {
            return new Stamp(stat.mtime(), stat.ctime());
        }
    }

    private record Key(DirKey dir, long verifier) {
    }

    /** One directory's names (without "." and "..") in ascending cookie order, and its verifier. */
    public static final class Listing {
        private final DirKey dir;
        private final long verifier;
        private final String[] names;
        private final long[] cookies;
        /**
         * The directory's times before the latest read that found these names, if they were
         * {@link #SETTLED_AFTER} old then; null if not (or unknown). Guarded by the enclosing
         * {@code DirectoryListings}.
         */
        private Stamp settled;

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
     * The snapshot a READDIR with {@code cookie} and {@code verifier} reads: the snapshot the
     * verifier names if it is still held and the cookie is not 0; else the directory's newest
     * snapshot if the directory has not changed since it was read; else the directory as it is now.
     *
     * @param dir the directory
     * @param stat its attributes as the call resolved it (device and inode identify it); a new
     *        listing stats the directory again, since an earlier operation of the same COMPOUND may
     *        have changed it
     */
    public Listing listing(Path dir, FileStat stat, long cookie, long verifier) throws IOException {
        if (cookie != 0) {
            synchronized (this) {
                Listing held = snapshots.get(new Key(new DirKey(stat.dev(), stat.ino()), verifier));
                if (held != null) {
                    return held;
                }
            }
        }
        return current(dir);
    }

    /**
     * The directory read again because {@code stale} names many entries that are gone: the stale
     * snapshot is dropped, so that a listing still holding its verifier is moved to the new one
     * (once) rather than skipping the same vanished names on every call.
     */
    public Listing reread(Path dir, Listing stale) throws IOException {
        synchronized (this) {
            Key k = new Key(stale.dir, stale.verifier);
            if (snapshots.remove(k, stale)) {
                held -= stale.names.length;
                newest.remove(stale.dir, stale);
            }
        }
        return current(dir);
    }

    /** The newest snapshot if the directory's times say it has not changed since, else a new read. */
    private Listing current(Path dir) throws IOException {
        // the clock before the stat and the stat before the read: a change after either shows as new times
        long now = wallClockNanos.getAsLong();
        FileStat stat = FileStat.of(dir);
        DirKey key = new DirKey(stat.dev(), stat.ino());
        Stamp stamp = Stamp.of(stat);
        if (reuseUnchanged) {
            synchronized (this) {
                Listing latest = newest.get(key);
                if (latest != null && stamp.equals(latest.settled)) {
                    snapshots.get(new Key(key, latest.verifier)); // now the most recently used
                    reuses.incrementAndGet();
                    return latest;
                }
            }
        }
        boolean settled = reuseUnchanged && Math.max(stamp.mtime(), stamp.ctime()) <= now - SETTLED_AFTER;
        return read(dir, key, settled ? stamp : null);
    }

    private Listing read(Path dir, DirKey key, Stamp settled) throws IOException {
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
            order[i] = cookies.applyAsLong(read.get(i));
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
                latest.settled = settled;
                return latest;
            }
            long verifier = nextVerifier++;
            if (verifier == 0) {
                verifier = nextVerifier++;
            }
            Listing l = new Listing(key, verifier, names, cookies);
            if (names.length <= maxNames) {
                l.settled = settled;
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

    /** New listings answered from an unchanged directory's snapshot without reading it (a test seam). */
    public long reuses() {
        return reuses.get();
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
