package org.iwarp4j.tools.nfs;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;
import org.iwarp4j.nfs.Nfs4Client;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.NfsStatusException;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.Write3Res;

/**
 * The benchmark on mounted sessions: CREATE a file per session, warm-up passes, WRITE passes
 * (UNSTABLE WRITEs of wsize, {@code inFlight} at once, then COMMIT), READ passes (READs of rsize),
 * REMOVE. The command warms every transport up before it measures any, so that the first one
 * measured does not pay alone for compiling the code both share (NFS, XDR, Netty), and then goes on
 * until the JIT compiler is quiet ({@link SteadyState}); the transports' measured passes take turns
 * ({@link #alternate}).
 * Every READ pass's CRC32C must equal the written octets'; every WRITE must be complete and the
 * write verifier unchanged through its COMMIT (RFC 1813 §3.3.7). The server's own copy is
 * checked too when its path is known (loopback).
 */
public final class NfsBenchRun {

    /** What one transport measured, with the sizes in force and anything that did not verify. */
    public record Result(NfsTransport transport, NfsThroughput write, NfsThroughput read, int rsize, int wsize,
                  List<String> problems) {
    }

    private final NfsBenchSettings settings;
    private final FilePattern pattern;
    private final int expectedCrc;

    public NfsBenchRun(NfsBenchSettings settings, FilePattern pattern) {
        this.settings = settings;
        this.pattern = pattern;
        this.expectedCrc = pattern.crc32c(settings.fileSize());
    }

    /**
     * The benchmark file of one transport's session, with what went wrong on it so far
     * ({@code problems} grows as passes run).
     */
    public record Target(NfsSession session, NfsFh3 dir, String name, NfsFh3 file, Path serverDirectory,
                  List<String> problems) {

        /** Removes the file (best effort: a failed REMOVE leaves a file behind, no wrong figure). */
        public void remove() {
            if (session.client4() != null) {
                try {
                    session.client4().remove(join(session.path(), name));
                } catch (RuntimeException e) {
                    // best effort
                }
                return;
            }
            session.client().remove(dir, name).handle((r, e) -> r).join();
        }
    }

    /**
     * CREATEs the file {@code name} in the session's directory; {@code serverDirectory} is that
     * directory on this machine (loopback) or null. The caller {@link Target#remove()}s it.
     */
    public Target create(NfsSession session, String name, Path serverDirectory) throws IOException, InterruptedException {
        if (session.client4() != null) {
            session.client4().upload(InputStream.nullInputStream(), join(session.path(), name));
            return new Target(session, null, name, null, serverDirectory, new ArrayList<>());
        }
        NfsClient nfs = session.client();
        NfsFh3 dir = nfs.lookupPath(session.path());
        Create3Res created = await(nfs.create(Create3Args.unchecked(new DirOpArgs3(dir, name), Sattr3.mode(0644))));
        check(created.status(), "CREATE " + name);
        NfsFh3 file = created.obj() != null ? created.obj() : nfs.lookupPath(join(session.path(), name));
        return new Target(session, dir, name, file, serverDirectory, new ArrayList<>());
    }

    /** The warm-up passes, verified but not timed. */
    public void warmUp(Target t) throws IOException, InterruptedException {
        String on = t.session.transport().name() + " warm-up";
        for (int i = 0; i < settings.warmupPasses(); i++) {
            writeOnce(t, on);
            readOnce(t, on);
        }
    }

    /**
     * Every transport's warm-up passes, then rounds (a WRITE and a READ pass on every transport, in
     * order) until the JIT compiler is quiet by {@code steady}'s rule. The same rule for every
     * transport: the rounds end when the code of all of them is compiled, so none is measured while
     * the compiler still works on another's code.
     */
    public SteadyState.Outcome warmUp(List<Target> targets, SteadyState steady) throws IOException, InterruptedException {
        for (Target t : targets) {
            warmUp(t);
        }
        return steady.run(() -> {
            for (Target t : targets) {
                String on = t.session.transport().name() + " warm-up";
                writeOnce(t, on);
                readOnce(t, on);
            }
        });
    }

    /**
     * The timed WRITE passes, then the timed READ passes, the transports taking turns pass by pass
     * ({@link #alternate}); the server's copy of each file is checked between the two (not timed).
     */
    public List<Result> measure(List<Target> targets) throws IOException, InterruptedException {
        List<Pass> writes = new ArrayList<>();
        List<Pass> reads = new ArrayList<>();
        for (Target t : targets) {
            String on = t.session.transport().name();
            writes.add(() -> writeOnce(t, on));
            reads.add(() -> readOnce(t, on));
        }
        List<NfsThroughput> written = alternate(writes, settings, System::nanoTime);
        for (Target t : targets) {
            if (t.serverDirectory != null) {
                checkServerCopy(t.serverDirectory.resolve(t.name), t.problems, t.session.transport().name());
            }
        }
        List<NfsThroughput> read = alternate(reads, settings, System::nanoTime);
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            int rsize = t.session.client4() != null ? t.session.client4().readSize() : rsize(t.session.client());
            int wsize = t.session.client4() != null ? t.session.client4().writeSize() : wsize(t.session.client());
            results.add(new Result(t.session.transport(), written.get(i), read.get(i), rsize, wsize,
                    List.copyOf(t.problems)));
        }
        return results;
    }

    private long writeOnce(Target t, String on) throws IOException, InterruptedException {
        if (t.session.client4() != null) {
            return writePass4(t);
        }
        NfsClient nfs = t.session.client();
        return writePass(nfs, t.file, wsize(nfs), t.problems, on);
    }

    private long readOnce(Target t, String on) throws IOException, InterruptedException {
        if (t.session.client4() != null) {
            return readPass4(t, on);
        }
        NfsClient nfs = t.session.client();
        return readPass(nfs, t.file, rsize(nfs), t.problems, on);
    }

    private int rsize(NfsClient nfs) {
        return Math.min(settings.rsize(), nfs.readSize());
    }

    private int wsize(NfsClient nfs) {
        return Math.min(settings.wsize(), nfs.writeSize());
    }

    /** One pass of one operation over one transport; returns its READ or WRITE calls. */
    interface Pass {
        long run() throws IOException, InterruptedException;
    }

    /**
     * The passes of one operation, one element of {@code transports} each, taking turns: first
     * transport, second, first, second ... Measured one after the other (all of RDMA, then all of
     * TCP) the second was measured after the first had run the JIT's compile queue down, and any
     * drift of the machine's load fell on one transport. Each transport runs {@code passes} passes,
     * or (by duration) passes until its own passes add up to the duration; one that has its count
     * or time sits the remaining turns out. Each pass is timed alone.
     */
    static List<NfsThroughput> alternate(List<Pass> transports, NfsBenchSettings settings, LongSupplier nanoClock)
            throws IOException, InterruptedException {
        int n = transports.size();
        long[] nanos = new long[n];
        long[] calls = new long[n];
        int[] passes = new int[n];
        long durationNanos = (long) (settings.durationSeconds() * 1e9);
        boolean more = true;
        while (more) {
            more = false;
            for (int i = 0; i < n; i++) {
                if (settings.byDuration() ? nanos[i] >= durationNanos : passes[i] >= settings.passes()) {
                    continue;
                }
                long start = nanoClock.getAsLong();
                calls[i] += transports.get(i).run();
                nanos[i] += nanoClock.getAsLong() - start;
                passes[i]++;
                more |= settings.byDuration() ? nanos[i] < durationNanos : passes[i] < settings.passes();
            }
        }
        List<NfsThroughput> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            result.add(new NfsThroughput(passes[i] * settings.fileSize(), calls[i], nanos[i], passes[i]));
        }
        return result;
    }

    private record Pending<T>(CompletableFuture<T> reply, long offset, int length) {
    }

    /** The whole file by UNSTABLE WRITEs, then COMMIT; returns the WRITE calls. */
    private long writePass(NfsClient nfs, NfsFh3 file, int wsize, List<String> problems, String on)
            throws IOException, InterruptedException {
        Deque<Pending<Write3Res>> inFlight = new ArrayDeque<>();
        long verifier = 0;
        boolean first = true;
        long calls = 0;
        long offset = 0;
        try {
            while (offset < settings.fileSize() || !inFlight.isEmpty()) {
                if (offset < settings.fileSize() && inFlight.size() < settings.inFlight()) {
                    int length = (int) Math.min(wsize, settings.fileSize() - offset);
                    ByteBuf data = nfs.transport().alloc().directBuffer(length, length);
                    pattern.write(data, offset, length);
                    inFlight.add(new Pending<>(nfs.write(file, offset, data, StableHow.UNSTABLE), offset, length));
                    offset += length;
                    calls++;
                    continue;
                }
                Pending<Write3Res> p = inFlight.poll();
                Write3Res r = await(p.reply());
                check(r.status(), "WRITE at " + p.offset());
                if (r.count() != p.length()) {
                    problems.add(on + ": WRITE at " + p.offset() + " wrote " + r.count() + " of " + p.length()
                            + " octets");
                }
                if (!first && r.verf() != verifier) {
                    problems.add(on + ": the write verifier changed during a pass (the server restarted)");
                }
                verifier = r.verf();
                first = false;
            }
        } finally {
            drain(inFlight);
        }
        Commit3Res c = await(nfs.commit(file, 0, 0));
        check(c.status(), "COMMIT");
        if (c.verf() != verifier) {
            problems.add(on + ": COMMIT's verifier differs from the WRITEs' (the server restarted; data may be lost)");
        }
        return calls;
    }

    /** The whole file by READs in order, its CRC32C compared with the written octets'; returns the READ calls. */
    private long readPass(NfsClient nfs, NfsFh3 file, int rsize, List<String> problems, String on)
            throws IOException, InterruptedException {
        Deque<Pending<Read3Res>> inFlight = new ArrayDeque<>();
        CRC32C crc = new CRC32C();
        long calls = 0;
        long offset = 0;
        long received = 0;
        try {
            while (offset < settings.fileSize() || !inFlight.isEmpty()) {
                if (offset < settings.fileSize() && inFlight.size() < settings.inFlight()) {
                    int length = (int) Math.min(rsize, settings.fileSize() - offset);
                    inFlight.add(new Pending<>(nfs.read(file, offset, length), offset, length));
                    offset += length;
                    calls++;
                    continue;
                }
                Pending<Read3Res> p = inFlight.poll();
                Read3Res r = await(p.reply());
                try {
                    check(r.status(), "READ at " + p.offset());
                    if (r.count() != p.length() || r.data().readableBytes() != p.length()) {
                        problems.add(on + ": READ at " + p.offset() + " returned " + r.data().readableBytes()
                                + " of " + p.length() + " octets");
                    }
                    for (ByteBuffer b : r.data().nioBuffers()) {
                        crc.update(b);
                    }
                    received += r.data().readableBytes();
                } finally {
                    r.release();
                }
            }
        } finally {
            while (!inFlight.isEmpty()) {
                inFlight.poll().reply().thenAccept(Read3Res::release);
            }
        }
        if ((int) crc.getValue() != expectedCrc || received != settings.fileSize()) {
            problems.add(String.format("%s: READ pass: %d octets with CRC32C %08x, written %d with %08x", on, received,
                    (int) crc.getValue(), settings.fileSize(), expectedCrc));
        }
        return calls;
    }

    /**
     * NFSv4: the whole file by the client's upload (OPEN truncating, pipelined UNSTABLE WRITEs of
     * its write size, COMMIT with the verifier checked, CLOSE); returns the WRITE calls.
     */
    private long writePass4(Target t) throws IOException {
        Nfs4Client nfs = t.session.client4();
        long written = nfs.upload(new PatternStream(pattern, settings.fileSize()), join(t.session.path(), t.name));
        if (written != settings.fileSize()) {
            t.problems.add(t.session.transport().name() + ": upload wrote " + written + " of " + settings.fileSize()
                    + " octets");
        }
        return (settings.fileSize() + nfs.writeSize() - 1) / nfs.writeSize();
    }

    /** NFSv4: the whole file by the client's download, its CRC32C compared with the written octets'. */
    private long readPass4(Target t, String on) throws IOException {
        Nfs4Client nfs = t.session.client4();
        CRC32C crc = new CRC32C();
        long received = nfs.download(join(t.session.path(), t.name), new java.io.OutputStream() {
            @Override
            public void write(int b) {
                crc.update(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                crc.update(b, off, len);
            }
        });
        if ((int) crc.getValue() != expectedCrc || received != settings.fileSize()) {
            t.problems.add(String.format("%s: READ pass: %d octets with CRC32C %08x, written %d with %08x", on,
                    received, (int) crc.getValue(), settings.fileSize(), expectedCrc));
        }
        return (settings.fileSize() + nfs.readSize() - 1) / nfs.readSize();
    }

    /** The pattern's first {@code size} octets as a stream. */
    private static final class PatternStream extends InputStream {
        private final FilePattern pattern;
        private final long size;
        private long offset;

        PatternStream(FilePattern pattern, long size) {
            this.pattern = pattern;
            this.size = size;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (offset >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - offset);
            ByteBuf target = io.netty.buffer.Unpooled.wrappedBuffer(b, off, n).writerIndex(0);
            pattern.write(target, offset, n);
            target.release();
            offset += n;
            return n;
        }
    }

    private void checkServerCopy(Path file, List<String> problems, String on) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 16];
        long size = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, n);
                size += n;
            }
        }
        if ((int) crc.getValue() != expectedCrc || size != settings.fileSize()) {
            problems.add(String.format("%s: the server's file has %d octets with CRC32C %08x, written %d with %08x",
                    on, size, (int) crc.getValue(), settings.fileSize(), expectedCrc));
        }
    }

    private static <T> void drain(Deque<Pending<T>> inFlight) {
        while (!inFlight.isEmpty()) {
            inFlight.poll().reply().exceptionally(e -> null).join();
        }
    }

    private static String join(String dir, String name) {
        return dir.isEmpty() ? name : dir + "/" + name;
    }

    private static void check(Nfs3Status status, String operation) {
        if (!status.isOk()) {
            throw new NfsStatusException(status, operation);
        }
    }

    private static <T> T await(CompletableFuture<T> reply) throws IOException, InterruptedException {
        try {
            return reply.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(cause.toString(), cause);
        }
    }
}
