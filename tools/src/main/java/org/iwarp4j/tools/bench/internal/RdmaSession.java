package org.iwarp4j.tools.bench.internal;

import org.iwarp4j.tools.bench.BandwidthResult;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.LatencyResult;
import org.iwarp4j.tools.bench.RdmaOutcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.iwarp4j.tools.bench.BenchStoppedException;
import org.iwarp4j.tools.bench.CpuUsage;
import org.iwarp4j.tools.bench.ServedSize;
import org.iwarp4j.rdmap.Rnic;

/**
 * The part of perftest's session both ends share once the connections are up: the {@link
 * PingPongDest} handshakes, the measured runs per size, the verification exchange between iwarp4j
 * ends ({@link Verdict}), the client's report and the closing handshake. The order of messages is
 * perftest 4.5's (see {@link org.iwarp4j.tools.bench.PerftestClient}).
 */
public abstract class RdmaSession {

    /** How long one control message or connection may take. */
    protected static final long TIMEOUT_SECONDS = 60;
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** What a field of perftest's {@code xchg_bw_reports} is called in errors. */
    private static final String REPORT = "a field of the bandwidth report";

    protected final Rnic rnic;
    protected final BenchSettings settings;
    protected final boolean client;
    protected final Consumer<String> progress;
    private BooleanSupplier stopped = () -> false;
    private SizeDone sizeDone = (size, bandwidth, latency, partial, cpu) -> { };
    private CpuClock cpuClock = CpuClock.none();
    private SizeStart sizeStart = size -> { };
    private Windows windows = (size, window, bandwidth, cpu) -> { };
    private PeerKnown peerKnown = (version, comparesTcp) -> { };
    protected ControlChannel control;
    protected DataEnd data;
    private String peerVersion = "";
    private boolean peerComparesTcp;
    private boolean peerStamps;
    private final List<BandwidthResult> bandwidth = new ArrayList<>();
    private final List<LatencyResult> latency = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final List<ServedSize> served = new ArrayList<>();

    protected RdmaSession(Rnic rnic, BenchSettings settings, boolean client, Consumer<String> progress) {
        this.rnic = rnic;
        this.settings = settings;
        this.client = client;
        this.progress = progress == null ? s -> { } : progress;
    }

    /**
     * What a client does when a size is done (its RDMA figures measured and, between iwarp4j ends,
     * verified): the TCP comparison of that size and the printed row. {@code partial}: the run was
     * stopped during the measurement; a figure is {@code null} if nothing was measured; {@code cpu}
     * is what the measurement cost ({@code null}: not measured).
     */
    @FunctionalInterface
    public interface SizeDone {
        void done(int size, BandwidthResult bandwidth, LatencyResult latency, boolean partial, CpuUsage cpu)
                throws IOException, InterruptedException;
    }

    /** What a client does before each size's RDMA transfer (the TCP comparison, when it goes first). */
    @FunctionalInterface
    public interface SizeStart {
        void starting(int size) throws IOException, InterruptedException;
    }

    /**
     * What a client does around each RDMA window of an interleaved size ({@link
     * BenchSettings#interleave()}, between iwarp4j ends): the TCP baselines' windows of that round,
     * those that go before RDMA's in {@link #before}, the others in {@link #after}.
     */
    @FunctionalInterface
    public interface Windows {
        /** After RDMA's window {@code window} of {@code size}, with its figures. */
        void after(int size, int window, BandwidthResult bandwidth, CpuUsage cpu)
                throws IOException, InterruptedException;

        /** Before RDMA's window {@code window} of {@code size}. */
        default void before(int size, int window) throws IOException, InterruptedException {
        }
    }

    /** Called by a client around each RDMA window of an interleaved size. */
    public void onWindows(Windows windows) {
        this.windows = windows;
    }

    /** Called by a client before each size. */
    public void onSizeStart(SizeStart sizeStart) {
        this.sizeStart = sizeStart;
    }

    /** A client reads the CPU time of each size's measurement with {@code clock}. */
    public void measureCpu(CpuClock clock) {
        this.cpuClock = clock;
    }

    /** Ends the measurement in progress early, and then the run, when {@code stopped} says so. */
    public void stopWhen(BooleanSupplier stopped) {
        this.stopped = stopped;
    }

    /** What the version exchange says about the peer. */
    @FunctionalInterface
    public interface PeerKnown {
        /**
         * {@code version}: the peer's version string; {@code comparesTcp}: the peer is iwarp4j and
         * runs the plain-TCP comparison (false for perftest).
         */
        void known(String version, boolean comparesTcp);
    }

    /** Told about the peer as soon as the versions are exchanged. */
    public void onPeerKnown(PeerKnown listener) {
        this.peerKnown = listener;
    }

    /** Called by a client after each size. */
    public void onSizeDone(SizeDone sizeDone) {
        this.sizeDone = sizeDone;
    }

    /** The peer's perftest version string (after the exchange of versions). */
    public String peerVersion() {
        return peerVersion;
    }

    private void stopIfAsked(int size) throws BenchStoppedException {
        if (stopped.getAsBoolean()) {
            throw new BenchStoppedException("stopped during the " + size + "-octet measurement");
        }
    }

    /** {@code exchange_versions}, {@code check_sys_data}, {@code check_mtu}. */
    protected void exchangeSystemData() throws IOException, InterruptedException {
        byte[] version = control.exchange(PerftestMessages.iwarp4jVersion(settings.compareTcp()), "the version");
        peerVersion = PerftestMessages.versionOf(version);
        peerComparesTcp = peerIsIwarp4j() && PerftestMessages.comparesTcp(version);
        peerStamps = peerIsIwarp4j() && PerftestMessages.stamps(version);
        peerKnown.known(peerVersion, peerComparesTcp);
        control.exchange(PerftestMessages.int32(PerftestMessages.CYCLE_BUFFER), "the cycle buffer size");
        control.exchange(PerftestMessages.int32(PerftestMessages.CACHE_LINE_SIZE), "the cache line size");
        control.exchange(PerftestMessages.mtu(), "the MTU");
    }

    /**
     * A server: when ({@link System#nanoTime()}) the client's last other transfer on this port (the
     * plain-TCP comparison) ended, so that a size's time leaves it out; 0 if none.
     */
    protected long otherTrafficEndedNanos() {
        return 0;
    }

    protected boolean peerIsIwarp4j() {
        return PerftestMessages.isIwarp4j(peerVersion);
    }

    /**
     * Whether both ends stamp each measured phase's last message and clear the target before it
     * ({@link BandwidthClient#prepareMeasurement}): this end always does, an iwarp4j peer since
     * its version message says so.
     */
    protected boolean bothStamp() {
        return peerStamps;
    }

    /** Whether the target areas hold this size's measured data: the stamped last message, or (without stamps) the pattern. */
    private String verifyTargets(int size) {
        return bothStamp() ? data.verifyStamped(size) : data.verifyTargets(size);
    }

    /** Whether both ends run the plain-TCP comparison (the version exchange says whether the peer does). */
    protected boolean bothCompareTcp() {
        return settings.compareTcp() && peerComparesTcp;
    }

    /** The destination handshakes, then the test; {@code mine} has one entry per queue pair. */
    protected RdmaOutcome runTest(List<PingPongDest> mine) throws IOException, InterruptedException {
        List<PingPongDest> remote = new ArrayList<>();
        int q = settings.queuePairs();
        if (!client && settings.test() == BenchTest.READ) {
            // Before the handshakes, not after: the client starts its RDMA Reads as soon as the last
            // one is done, and a Read Response of memory still being filled carries octets that
            // changed between its CRC pass and its socket write (a CRC error at the client).
            for (int i = 0; i < q; i++) {
                Pattern.fill(data.memory(), data.targetOffset(i), settings.bufferPerQueuePair());
            }
            if (bothStamp()) {
                data.stampSources(settings.sizes().get(0)); // the client's last Read of the first size
            }
        }
        for (int i = 0; i < q; i++) {
            remote.add(handShake(mine.get(i)));
        }
        if (settings.test() == BenchTest.SEND) {
            handShake(mine.get(0));
            for (int i = 0; i < q; i++) {
                handShake(mine.get(i));
            }
        } else {
            for (int i = 0; i < q; i++) {
                remote.set(i, handShake(mine.get(i)));
            }
            handShake(mine.get(0));
        }
        if (settings.test().isLatency() && !peerIsIwarp4j()) {
            throw new IOException("the latency tests need an iwarp4j peer; the peer is perftest " + peerVersion);
        }
        switch (settings.test()) {
            case WRITE, READ -> {
                if (client) {
                    clientBandwidth(mine.get(0), remote);
                } else {
                    serverWriteRead(mine.get(0));
                }
            }
            case SEND -> {
                if (client) {
                    clientBandwidth(mine.get(0), remote);
                } else {
                    serverSend(mine.get(0), remote);
                }
            }
            default -> pingPong(mine.get(0), remote.get(0));
        }
        return new RdmaOutcome(peerVersion, bandwidth, latency, peerIsIwarp4j(), problems, served);
    }

    private void clientBandwidth(PingPongDest mine, List<PingPongDest> remote)
            throws IOException, InterruptedException {
        boolean iwarp4j = peerIsIwarp4j();
        boolean send = settings.test() == BenchTest.SEND;
        boolean allSizes = settings.sizes().size() > 1;
        BandwidthClient engine = new BandwidthClient(data, remote, iwarp4j, bothStamp());
        engine.stopWhen(stopped);
        for (int size : settings.sizes()) {
            sizeStart.starting(size);
            progress.accept(settings.test().operation() + " " + size + " octets");
            if (send) {
                handShake(mine);
            }
            engine.startSize();
            if (settings.test() == BenchTest.READ) {
                data.clearTargets(size);
            }
            if (!send || iwarp4j) { // perftest's Send server counts exactly -n messages: no warm-up then
                engine.warmUp(size, settings.warmupSeconds());
            }
            boolean fence = iwarp4j && settings.test() != BenchTest.READ;
            int count = iwarp4j ? settings.interleave() : 1;
            List<BandwidthResult> parts = new ArrayList<>();
            List<CpuUsage> partsCpu = new ArrayList<>();
            for (int window = 0; window < count && (window == 0 || !stopped.getAsBoolean()); window++) {
                if (count > 1) {
                    windows.before(size, window);
                    progress.accept(settings.test().operation() + " " + size + " octets, window " + (window + 1)
                            + " of " + count);
                }
                engine.prepareMeasurement(size); // outside the phase's time and CPU figures
                CpuClock.Mark cpuStart = cpuClock.mark();
                BandwidthResult part = engine.measure(size, settings.iterations(), settings.durationSeconds() / count,
                        fence && !stopped.getAsBoolean());
                parts.add(part);
                partsCpu.add(cpuClock.since(cpuStart, part.iterations() * size, part.iterations()));
                if (!stopped.getAsBoolean()) {
                    engine.measurementDone(size);
                }
                if (count > 1 && !stopped.getAsBoolean()) {
                    windows.after(size, window, part, partsCpu.get(window));
                }
            }
            BandwidthResult result = count == 1 ? parts.get(0) : BandwidthResult.combined(size, parts);
            CpuUsage cpu = count == 1 ? partsCpu.get(0) : CpuUsage.combined(partsCpu);
            if (stopped.getAsBoolean()) {
                // Ctrl-C: no verdict exchange (the server may be mid-size); what was measured is the row.
                sizeDone.done(size, result.iterations() > 0 ? result : null, null, true, cpu);
                stopIfAsked(size);
            }
            bandwidth.add(result);
            if (iwarp4j) {
                Verdict verdict = Verdict.decode(control.exchange(Verdict.sizeDone(size, engine.sentForSize()),
                        Verdict.VERDICT));
                if (!verdict.ok()) {
                    problems.add(verdict.describe(size));
                }
                String local = settings.test() == BenchTest.READ ? verifyTargets(size) : null;
                if (local != null) {
                    problems.add("client, RDMA Read sink: " + local);
                }
            }
            if (send && allSizes) {
                handShake(mine);
            }
            sizeDone.done(size, result, null, false, cpu);
            stopIfAsked(size);
        }
        if (!send) {
            handShake(mine);
            BandwidthResult last = bandwidth.get(bandwidth.size() - 1);
            control.exchange(PerftestMessages.int64(last.size()), REPORT);
            control.exchange(PerftestMessages.int64(last.iterations()), REPORT);
            control.exchange(PerftestMessages.float64(last.peakBytesPerSecond() / (1 << 20)), REPORT);
            control.exchange(PerftestMessages.float64(last.averageBytesPerSecond() / (1 << 20)), REPORT);
            control.exchange(PerftestMessages.float64(last.messagesPerSecond() / 1e6), REPORT);
        }
        closingHandShake(mine);
    }

    private void serverWriteRead(PingPongDest mine) throws IOException, InterruptedException {
        if (peerIsIwarp4j()) {
            List<Integer> sizes = settings.sizes();
            for (int k = 0; k < sizes.size(); k++) {
                int size = sizes.get(k);
                long start = System.nanoTime();
                byte[] done = awaitMessage(Verdict.LENGTH, Verdict.SIZE_REPORT);
                long end = System.nanoTime();
                // The client ran the previous size's TCP comparison after that size's verdict: not this size's time.
                long nanos = end - Math.max(start, Math.min(end, otherTrafficEndedNanos()));
                Verdict verdict = expectSize(size, done);
                if (verdict == null) {
                    served.add(new ServedSize(size, Verdict.messagesOf(done), false, nanos));
                    String mismatch = settings.test() == BenchTest.WRITE ? verifyTargets(size) : null;
                    verdict = new Verdict(mismatch == null ? Verdict.OK : Verdict.DATA_MISMATCH,
                            Verdict.messagesOf(done), 0);
                    if (mismatch != null) {
                        problems.add(mismatch);
                    }
                }
                if (settings.test() == BenchTest.WRITE) {
                    data.clearTargets(settings.bufferPerQueuePair());
                } else if (bothStamp() && k + 1 < sizes.size()) {
                    // Before the verdict: the client's Reads of this size are all in, its next start after it.
                    data.stampSources(sizes.get(k + 1));
                }
                control.send(verdict.encode());
            }
        }
        answer(awaitHandShake(), mine);
        double mib = 1 << 20;
        long size = PerftestMessages.int64(control.exchange(new byte[8], REPORT));
        long iterations = PerftestMessages.int64(control.exchange(new byte[8], REPORT));
        double peak = PerftestMessages.float64(control.exchange(new byte[8], REPORT)) * mib;
        double average = PerftestMessages.float64(control.exchange(new byte[8], REPORT)) * mib;
        double rate = PerftestMessages.float64(control.exchange(new byte[8], REPORT)) * 1e6;
        bandwidth.add(new BandwidthResult((int) size, iterations, peak, average, rate));
        answer(awaitHandShake(), mine);
    }

    private void serverSend(PingPongDest mine, List<PingPongDest> remote) throws IOException, InterruptedException {
        boolean iwarp4j = peerIsIwarp4j();
        boolean allSizes = settings.sizes().size() > 1;
        SendReceiver receiver = new SendReceiver(data, remote, iwarp4j);
        receiver.start();
        try {
            serveSends(receiver, iwarp4j, allSizes, mine);
        } finally {
            receiver.stop();
        }
    }

    private void serveSends(SendReceiver receiver, boolean iwarp4j, boolean allSizes, PingPongDest mine)
            throws IOException, InterruptedException {
        boolean closed = false;
        for (int size : settings.sizes()) {
            byte[] go = awaitHandShake();
            receiver.startSize(size, !iwarp4j); // before the answer: the client sends as soon as it has it
            answer(go, mine);
            long start = System.nanoTime();
            // iwarp4j's client ends a size with its size report, perftest's with a handshake
            byte[] message = iwarp4j ? receiver.serve(control, Verdict.LENGTH, Verdict.SIZE_REPORT)
                    : receiver.serve(control, PingPongDest.LENGTH, ControlChannel.HANDSHAKE);
            if (iwarp4j) {
                Verdict verdict = expectSize(size, message);
                if (verdict == null) {
                    receiver.drainUntil(Verdict.messagesOf(message));
                    served.add(new ServedSize(size, receiver.receivedForSize(), true, System.nanoTime() - start));
                    String mismatch = verifyTargets(size);
                    verdict = receiver.wrongLength() > 0
                            ? new Verdict(Verdict.COUNT_MISMATCH, receiver.receivedForSize(), 0)
                            : new Verdict(mismatch == null ? Verdict.OK : Verdict.DATA_MISMATCH,
                                    receiver.receivedForSize(), 0);
                    if (mismatch != null) {
                        problems.add(mismatch);
                    }
                }
                data.clearTargets(settings.bufferPerQueuePair());
                control.send(verdict.encode());
                if (allSizes) {
                    answer(awaitHandShake(), mine);
                }
            } else {
                served.add(new ServedSize(size, receiver.receivedForSize(), true, System.nanoTime() - start));
                answer(message, mine); // a perftest client: its next handshake ends the run
                closed = !allSizes;
            }
        }
        if (!closed) {
            answer(awaitHandShake(), mine);
        }
    }

    private void pingPong(PingPongDest mine, PingPongDest remote) throws IOException, InterruptedException {
        PingPong engine = new PingPong(data, remote);
        engine.postReceives();
        for (int size : settings.sizes()) {
            engine.startSize(size);
            if (client) {
                sizeStart.starting(size);
                progress.accept(settings.test().operation() + " latency " + size + " octets");
                handShake(mine);
                engine.warmUp(settings.warmupSeconds(), stopped);
                CpuClock.Mark cpuStart = cpuClock.mark();
                LatencyResult measured = engine.measure(settings.iterations(), settings.durationSeconds(), stopped);
                long roundTrips = measured == null ? 0 : measured.iterations();
                CpuUsage cpu = cpuClock.since(cpuStart, 2 * roundTrips * size, roundTrips);
                if (stopped.getAsBoolean()) {
                    sizeDone.done(size, null, measured, true, cpu);
                    stopIfAsked(size);
                }
                latency.add(measured);
                String local = engine.verify();
                if (local != null) {
                    problems.add("client: " + local);
                }
                Verdict verdict = Verdict.decode(control.exchange(Verdict.sizeDone(size, engine.count()),
                        Verdict.VERDICT));
                if (!verdict.ok()) {
                    problems.add(verdict.describe(size));
                }
                sizeDone.done(size, null, measured, false, cpu);
                stopIfAsked(size);
            } else {
                answer(awaitHandShake(), mine);
                long start = System.nanoTime();
                byte[] done = engine.serve(control, Verdict.LENGTH, Verdict.SIZE_REPORT);
                long nanos = System.nanoTime() - start;
                Verdict verdict = expectSize(size, done);
                if (verdict == null) {
                    served.add(new ServedSize(size, engine.count(), true, nanos));
                    String mismatch = engine.verify();
                    verdict = new Verdict(mismatch == null ? Verdict.OK : Verdict.DATA_MISMATCH, engine.count(), 0);
                    if (mismatch != null) {
                        problems.add(mismatch);
                    }
                }
                control.send(verdict.encode());
            }
        }
        if (client) {
            closingHandShake(mine);
        } else {
            answer(awaitHandShake(), mine);
        }
    }

    private Verdict expectSize(int size, byte[] sizeDone) {
        if (Verdict.sizeOf(sizeDone) != size) {
            problems.add("the client measured " + Verdict.sizeOf(sizeDone)
                    + "-octet messages; this end was told " + size + " (give both ends the same -s/-a)");
            return new Verdict(Verdict.SIZE_MISMATCH, 0, size);
        }
        return null;
    }

    private PingPongDest handShake(PingPongDest mine) throws IOException, InterruptedException {
        if (client) {
            return control.handShake(mine);
        }
        return answer(awaitHandShake(), mine);
    }

    /** The server's half of a handshake whose first message has arrived. */
    private PingPongDest answer(byte[] theirs, PingPongDest mine) throws IOException, InterruptedException {
        control.send(mine.encode());
        return PingPongDest.decode(theirs);
    }

    private byte[] awaitHandShake() throws IOException, InterruptedException {
        return awaitMessage(PingPongDest.LENGTH, ControlChannel.HANDSHAKE);
    }

    /**
     * A server waits for its client as long as the connection lives (a run may take long), for
     * {@code what} of {@code length} octets.
     */
    private byte[] awaitMessage(int length, String what) throws IOException, InterruptedException {
        while (true) {
            byte[] message = control.tryReceive(TimeUnit.SECONDS.toNanos(1), length, what);
            if (message != null) {
                return message;
            }
        }
    }

    /**
     * {@code ctx_close_connection}; perftest's Send server may exit without answering it. Against
     * perftest the client, which receives the last message, then waits for the server to close first
     * (see {@link ControlChannel#awaitPeerClose}: perftest's server exits once its answer is sent). An
     * iwarp4j server keeps its end open until the client's TCP comparison is done.
     */
    private void closingHandShake(PingPongDest mine) throws IOException, InterruptedException {
        control.send(mine.encode());
        try {
            if (control.tryReceive(CLOSE_WAIT_NANOS, PingPongDest.LENGTH, ControlChannel.HANDSHAKE) == null) {
                progress.accept("the server did not answer the closing handshake");
                return;
            }
        } catch (IOException closedInstead) {
            progress.accept("the server closed instead of answering the closing handshake");
            return;
        }
        if (client && !peerIsIwarp4j() && !control.awaitPeerClose(CLOSE_WAIT_NANOS)) {
            progress.accept("the server did not close the control connection within "
                    + TimeUnit.NANOSECONDS.toSeconds(CLOSE_WAIT_NANOS) + " s; closing it");
        }
    }
}
