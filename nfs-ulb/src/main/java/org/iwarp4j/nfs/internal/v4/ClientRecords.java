package org.iwarp4j.nfs.internal.v4;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's stable storage of client records (RFC 8881 §8.4.2.1, §8.4.3): the client owners
 * (co_ownerid) that may hold state, kept in one small file so that after a restart the server
 * knows which clients may reclaim during the grace period and refuses reclaims from any other.
 *
 * <p>The file {@value #FILE_NAME} is a text log: a header line, then one change per line, {@code
 * +owner} or {@code -owner} with the owner in hex. A change appends its one line, so what a
 * client's request costs does not depend on how many other clients are recorded. When the log
 * holds more than {@link #compactionThreshold} changes since it was last rewritten, it is
 * rewritten as the live records alone (written beside, forced, renamed over): an amortised cost of
 * at most one line per change. The file is also rewritten at every start, so the log never carries
 * more than one start's changes. A crash leaves a complete log or one whose last line is torn; a
 * torn or malformed line is ignored at load (its change was not yet acknowledged: the reply
 * follows the write).
 *
 * <p>Writing is a group commit, apart from the changes. {@link #add}, {@link #remove} and {@link
 * #removeAll} change the records in memory and queue their line, under the server's state lock
 * and without any file-system call; {@link #commit()}, called with no lock held before the reply
 * of the COMPOUND that made the changes, writes them. One thread writes at a time, and it writes
 * and forces every line queued so far at once: a COMPOUND whose changes a writer before it took
 * along returns without writing; the expiry of many clients within one SEQUENCE is one write and
 * one force. So no request waits for the disk while holding the state lock that every other
 * request needs. A request that finds an owner already recorded (or forgotten) by another
 * request whose line is not written yet waits for that line too, so that no reply says more than
 * the disk holds. The changes a thread must see on disk are kept per thread, as a COMPOUND runs
 * on one thread from its first operation to its reply.
 *
 * <p>At most {@code cap} owners are kept (one more is not recorded and cannot reclaim after a
 * restart; a warning says so); an owner is at most NFS4_OPAQUE_LIMIT (1024) octets. A file larger
 * than the log can grow to, or of another format, is ignored with a warning: the server then
 * starts without a grace period, as it would without records. The list format this server wrote
 * before the log ({@value #LIST_HEADER}: one owner a line) is still read.
 *
 * <p>Without a directory nothing is stored ({@link #none()}): no client can reclaim after a
 * restart, and no grace period is needed.
 */
final class ClientRecords {

    private static final Logger log = LoggerFactory.getLogger(ClientRecords.class);
    static final String FILE_NAME = "nfsv4-clients";
    static final String HEADER = "iwarp4j nfsv4 client records 2";
    static final String LIST_HEADER = "iwarp4j nfsv4 client records 1";
    private static final int MAX_OWNER = 1024;
    /** Changes the log always tolerates before a rewrite, however few records are live. */
    private static final int MIN_LOG = 64;

    /** How a written file is made durable ({@link FileChannel#force}); tests watch or hold it up. */
    interface Forcing {
        Forcing FILE_SYSTEM = FileChannel::force;

        void force(FileChannel channel, boolean metaData) throws IOException;
    }

    private final Path file;
    private final int cap;
    /** Guards the records in memory and the queue; held for no file-system call. */
    private final Object state = new Object();
    /** One writer at a time; taken before {@link #state}, never while a caller holds the state lock of the server. */
    private final Object writer = new Object();
    /** Lines queued and not yet written; guarded by {@link #state}. */
    private final List<String> queued = new ArrayList<>();
    /** The last change of each owner whose change is not written yet, by its number; guarded by {@link #state}. */
    private final java.util.Map<ByteBuffer, Long> unwritten = new java.util.HashMap<>();
    /** Changes queued since the start, each change's ticket its number; guarded by {@link #state}. */
    private long changes;
    /** Changes written (or given up on, with a warning) so far. */
    private volatile long written;
    /** The last change this thread made, for its {@link #commit()}. */
    private final ThreadLocal<long[]> madeByThread = ThreadLocal.withInitial(() -> new long[1]);
    private volatile Forcing forcing = Forcing.FILE_SYSTEM;
    /** Forces of the file, for tests. */
    private final java.util.concurrent.atomic.AtomicLong forces = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Warnings that clients can make the records give in a loop: a client left out because they
     * are full, a change not written (each new or departing client writes the file).
     */
    private final LogRateLimit warningLog;
    /** What the previous incarnation of the server recorded: the clients that may reclaim now. */
    private final Set<ByteBuffer> previous;
    /** What this incarnation has recorded (starts as the previous list, so an early restart loses nothing). */
    private final Set<ByteBuffer> current;
    /** Changes appended since the last rewrite; guarded by {@link #state}. */
    private int logged;
    /**
     * The next write rewrites the file whole instead of appending: a change failed to reach it,
     * or {@link #removeAll} changed many at once; guarded by {@link #state}.
     */
    private boolean stale;
    /** Rewrites so far, for tests. */
    private volatile int rewrites;

    private ClientRecords(Path file, int cap, Set<ByteBuffer> previous, LogRateLimit warningLog) {
        this.file = file;
        this.cap = cap;
        this.warningLog = warningLog;
        this.previous = Collections.unmodifiableSet(previous);
        this.current = new LinkedHashSet<>(previous);
    }

    /** No stable storage. */
    static ClientRecords none() {
        return new ClientRecords(null, 0, new LinkedHashSet<>(), null);
    }

    /**
     * The records in {@code directory} (created if missing), at most {@code cap} of them; {@code
     * warningLog} limits the warnings that clients can provoke. The file is rewritten as the live
     * records before this returns.
     */
    static ClientRecords open(Path directory, int cap, LogRateLimit warningLog) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE_NAME);
        ClientRecords records = new ClientRecords(file, cap, load(file, cap), warningLog);
        records.rewrite(records.snapshot());
        return records;
    }

    /**
     * How many changes the log takes before it is rewritten with {@code live} records: twice the
     * live records, so a rewrite (one line per record) costs at most half a line per change.
     */
    static int compactionThreshold(int live) {
        return Math.max(MIN_LOG, 2 * live);
    }

    /** The largest file the log can be with {@code cap} records: a rewrite's records plus a full log. */
    static long maxFileSize(int cap) {
        long lines = (long) cap + compactionThreshold(cap) + 1;
        return HEADER.length() + 1 + lines * (2L * MAX_OWNER + 2);
    }

    private static Set<ByteBuffer> load(Path file, int cap) throws IOException {
        Set<ByteBuffer> owners = new LinkedHashSet<>();
        if (!Files.exists(file)) {
            return owners;
        }
        if (Files.size(file) > maxFileSize(cap)) {
            log.warn("NFSv4 client records {} hold {} octets, more than {} records can: ignored (no grace period)",
                    file, Files.size(file), cap);
            return owners;
        }
        String text = Files.readString(file, StandardCharsets.ISO_8859_1);
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        // the piece after the last newline is empty, or the tail of a change cut short by a crash
        boolean torn = !lines.get(lines.size() - 1).isEmpty();
        lines.remove(lines.size() - 1);
        boolean list = !lines.isEmpty() && LIST_HEADER.equals(lines.get(0));
        if (lines.isEmpty() || !(list || HEADER.equals(lines.get(0)))) {
            log.warn("NFSv4 client records {}: not a file of this server's format; ignored (no grace period)", file);
            return owners;
        }
        int ignored = torn ? 1 : 0;
        for (String line : lines.subList(1, lines.size())) {
            char change = list ? '+' : line.isEmpty() ? ' ' : line.charAt(0);
            byte[] owner = ownerOf(list ? line : line.substring(Math.min(1, line.length())));
            if ((change != '+' && change != '-') || owner == null) {
                ignored++;
                continue;
            }
            ByteBuffer key = ByteBuffer.wrap(owner);
            if (change == '-') {
                owners.remove(key);
            } else if (owners.size() < cap || owners.contains(key)) {
                owners.add(key);
            } else {
                ignored++;
            }
        }
        if (ignored > 0) {
            log.warn("NFSv4 client records {}: {} malformed, torn or out-of-bounds lines ignored", file, ignored);
        }
        return owners;
    }

    private static byte[] ownerOf(String hex) {
        try {
            byte[] owner = HexFormat.of().parseHex(hex);
            return owner.length == 0 || owner.length > MAX_OWNER ? null : owner;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    boolean stable() {
        return file != null;
    }

    /** The owners recorded before this start. */
    Set<ByteBuffer> previous() {
        return previous;
    }

    boolean wasRecorded(byte[] owner) {
        return previous.contains(ByteBuffer.wrap(owner));
    }

    /**
     * Records {@code owner} unless it is recorded already or the cap is reached; on disk once
     * this thread's {@link #commit()} returned.
     */
    void add(byte[] owner) {
        if (file == null) {
            return;
        }
        synchronized (state) {
            if (current.contains(ByteBuffer.wrap(owner))) {
                awaitChange(owner); // recorded by another thread's request, maybe not on disk yet
                return;
            }
            if (current.size() >= cap) {
                long held = warningLog.admit();
                if (held >= 0) {
                    log.warn("NFSv4 client records full ({}): a client is not recorded and cannot reclaim after a"
                            + " restart{}", cap, held == 0 ? "" : " (" + held + " more warnings not given since the"
                            + " last message)");
                }
                return;
            }
            ByteBuffer key = ByteBuffer.wrap(owner.clone());
            current.add(key);
            queue('+' + HexFormat.of().formatHex(owner) + '\n');
            unwritten.put(key, changes);
        }
    }

    /** Forgets {@code owner} (its client lost its state: expired or destroyed); on disk as {@link #add}. */
    void remove(byte[] owner) {
        if (file == null) {
            return;
        }
        synchronized (state) {
            if (current.remove(ByteBuffer.wrap(owner))) {
                queue('-' + HexFormat.of().formatHex(owner) + '\n');
                unwritten.put(ByteBuffer.wrap(owner.clone()), changes);
            } else {
                awaitChange(owner);
            }
        }
    }

    /**
     * Forgets these owners at once (the clients that did not reclaim within the grace period; once
     * a start): the next write rewrites the file.
     */
    void removeAll(Set<ByteBuffer> owners) {
        if (file == null) {
            return;
        }
        synchronized (state) {
            if (current.removeAll(owners)) {
                stale = true;
                queue(null);
            }
        }
    }

    /**
     * Makes this thread's commit wait for the owner's last change if it is not written yet: a
     * request that finds the owner recorded (or forgotten) by another's must not reply before
     * that change is on disk either. Under {@link #state}.
     */
    private void awaitChange(byte[] owner) {
        Long change = unwritten.get(ByteBuffer.wrap(owner));
        long[] made = madeByThread.get();
        if (change != null && change > written && change > made[0]) {
            made[0] = change;
        }
    }

    /** Queues one change ({@code line} null: only a rewrite) as this thread's; under {@link #state}. */
    private void queue(String line) {
        if (line != null) {
            queued.add(line);
        }
        madeByThread.get()[0] = ++changes;
    }

    /**
     * Writes the changes this thread made, and every other change queued by then, unless a
     * writer already did; returns once they are on disk (or failed to get there, with a warning).
     * Never called with the server's state lock held: it waits for the file system.
     */
    void commit() {
        long[] made = madeByThread.get();
        long mine = made[0];
        made[0] = 0;
        if (mine == 0 || mine <= written) {
            return;
        }
        synchronized (writer) {
            if (mine <= written) {
                return; // a writer before this one took it along
            }
            List<String> lines;
            long upTo;
            String whole = null;
            synchronized (state) {
                lines = new ArrayList<>(queued);
                queued.clear();
                upTo = changes;
                if (stale || logged + lines.size() > compactionThreshold(current.size())) {
                    // cleared now, not once written: a removeAll meanwhile sets it for the next writer
                    whole = snapshot();
                    stale = false;
                    logged = 0;
                }
            }
            if (whole != null) {
                rewrite(whole);
            } else {
                append(lines);
            }
            written = upTo;
            synchronized (state) {
                unwritten.values().removeIf(change -> change <= upTo);
            }
        }
    }

    int size() {
        synchronized (state) {
            return current.size();
        }
    }

    /** Forces of the file since the start (a test seam: a group commit forces once for many changes). */
    long forces() {
        return forces.get();
    }

    /** How the file is forced from now on (a test seam). */
    void forcing(Forcing forcing) {
        this.forcing = forcing;
    }

    /** Warnings held back since the start. */
    long warningsHeld() {
        return warningLog == null ? 0 : warningLog.heldTotal();
    }

    /** How often the file was rewritten whole since the start (the first is at {@link #open}). */
    int rewrites() {
        return rewrites;
    }

    /** Appends {@code lines} and forces them once; by the one writer. */
    private void append(List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            writeFully(ch, String.join("", lines));
            force(ch, false);
            synchronized (state) {
                logged += lines.size();
            }
        } catch (IOException e) {
            failed(e);
        }
    }

    /** The file's text with the live records alone; under {@link #state} (or before anyone else sees this). */
    private String snapshot() {
        StringBuilder s = new StringBuilder(HEADER).append('\n');
        for (ByteBuffer owner : current) {
            s.append('+').append(HexFormat.of().formatHex(owner.array(), owner.arrayOffset(),
                    owner.arrayOffset() + owner.limit())).append('\n');
        }
        return s.toString();
    }

    /** Replaces the file with {@code text} (a {@link #snapshot()}); by the one writer, or at {@link #open}. */
    private void rewrite(String text) {
        Path tmp = file.resolveSibling(FILE_NAME + ".new");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(ch, text);
                force(ch, true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory();
            rewrites++;
        } catch (IOException e) {
            failed(e);
        }
    }

    private void force(FileChannel ch, boolean metaData) throws IOException {
        forces.incrementAndGet();
        forcing.force(ch, metaData);
    }

    /** The rename is durable only once the directory is; some platforms cannot open one, and then it stays to chance. */
    private void forceDirectory() {
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // the file's own contents are forced; only the rename may be lost in a crash
        }
    }

    private static void writeFully(FileChannel ch, CharSequence text) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private void failed(IOException e) {
        // the clients keep their state; only a restart's reclaims are at risk until a rewrite succeeds
        synchronized (state) {
            stale = true;
        }
        long held = warningLog == null ? 0 : warningLog.admit();
        if (held >= 0) {
            log.warn("NFSv4 client records {} not written: {}{}", file, e.toString(),
                    held == 0 ? "" : " (" + held + " more warnings not given since the last message)");
        }
    }
}
