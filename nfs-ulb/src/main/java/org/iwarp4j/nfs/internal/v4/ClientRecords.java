package org.iwarp4j.nfs.internal.v4;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
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
 * <p>The file {@value #FILE_NAME} is text: a header line, then one owner per line in hex. It is
 * replaced atomically (written beside, forced to disk, renamed over) on every change, so a crash
 * leaves either the old or the new list. At most {@code cap} owners are kept (one more is not
 * recorded and cannot reclaim after a restart; a warning says so); an owner is at most
 * NFS4_OPAQUE_LIMIT (1024) octets, so the file stays below {@code cap} × 2 KiB. A file that is
 * larger, malformed or of another format is ignored with a warning: the server then starts
 * without a grace period, as it would without records.
 *
 * <p>Without a directory nothing is stored ({@link #none()}): no client can reclaim after a
 * restart, and no grace period is needed. Callers hold {@link Nfs4Context#lock()}.
 */
final class ClientRecords {

    private static final Logger log = LoggerFactory.getLogger(ClientRecords.class);
    static final String FILE_NAME = "nfsv4-clients";
    private static final String HEADER = "iwarp4j nfsv4 client records 1";
    private static final int MAX_OWNER = 1024;

    private final Path file;
    private final int cap;
    /**
     * Warnings that clients can make the records give in a loop: a client left out because they
     * are full, a change not written (each new or departing client writes the file).
     */
    private final LogRateLimit warningLog;
    /** What the previous incarnation of the server recorded: the clients that may reclaim now. */
    private final Set<ByteBuffer> previous;
    /** What this incarnation has recorded (starts as the previous list, so an early restart loses nothing). */
    private final Set<ByteBuffer> current;

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
     * warningLog} limits the warnings that clients can provoke.
     */
    static ClientRecords open(Path directory, int cap, LogRateLimit warningLog) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE_NAME);
        return new ClientRecords(file, cap, load(file, cap), warningLog);
    }

    private static Set<ByteBuffer> load(Path file, int cap) throws IOException {
        Set<ByteBuffer> owners = new LinkedHashSet<>();
        if (!Files.exists(file)) {
            return owners;
        }
        long limit = 64 + (long) cap * (2 * MAX_OWNER + 1);
        if (Files.size(file) > limit) {
            log.warn("NFSv4 client records {} hold {} octets, more than {} records can: ignored (no grace period)",
                    file, Files.size(file), cap);
            return owners;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        if (lines.isEmpty() || !HEADER.equals(lines.get(0))) {
            log.warn("NFSv4 client records {}: not a file of this server's format; ignored (no grace period)", file);
            return owners;
        }
        for (String line : lines.subList(1, lines.size())) {
            byte[] owner;
            try {
                owner = HexFormat.of().parseHex(line);
            } catch (IllegalArgumentException e) {
                log.warn("NFSv4 client records {}: malformed line ignored", file);
                continue;
            }
            if (owner.length == 0 || owner.length > MAX_OWNER || owners.size() >= cap) {
                log.warn("NFSv4 client records {}: record out of bounds ignored", file);
                continue;
            }
            owners.add(ByteBuffer.wrap(owner));
        }
        return owners;
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

    /** Records {@code owner} (written at once) unless it is recorded already or the cap is reached. */
    void add(byte[] owner) {
        if (file == null || current.contains(ByteBuffer.wrap(owner))) {
            return;
        }
        if (current.size() >= cap) {
            long held = warningLog.admit();
            if (held >= 0) {
                log.warn("NFSv4 client records full ({}): a client is not recorded and cannot reclaim after a"
                        + " restart{}", cap, held == 0 ? "" : " (" + held + " more warnings not given since the last message)");
            }
            return;
        }
        current.add(ByteBuffer.wrap(owner.clone()));
        write();
    }

    /** Forgets {@code owner} (its client lost its state: expired or destroyed). */
    void remove(byte[] owner) {
        if (file != null && current.remove(ByteBuffer.wrap(owner))) {
            write();
        }
    }

    /** Forgets these owners at once (the clients that did not reclaim within the grace period). */
    void removeAll(Set<ByteBuffer> owners) {
        if (file != null && current.removeAll(owners)) {
            write();
        }
    }

    int size() {
        return current.size();
    }

    /** Warnings held back since the start. */
    long warningsHeld() {
        return warningLog == null ? 0 : warningLog.heldTotal();
    }

    private void write() {
        StringBuilder s = new StringBuilder(HEADER).append('\n');
        for (ByteBuffer owner : current) {
            s.append(HexFormat.of().formatHex(owner.array(), owner.arrayOffset(), owner.arrayOffset() + owner.limit()))
                    .append('\n');
        }
        Path tmp = file.resolveSibling(FILE_NAME + ".new");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(s.toString().getBytes(StandardCharsets.US_ASCII));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // the clients keep their state; only a restart's reclaims are at risk
            long held = warningLog.admit();
            if (held >= 0) {
                log.warn("NFSv4 client records {} not written: {}{}", file, e.toString(),
                        held == 0 ? "" : " (" + held + " more warnings not given since the last message)");
            }
        }
    }
}
