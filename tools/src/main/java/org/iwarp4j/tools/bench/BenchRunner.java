package org.iwarp4j.tools.bench;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.iwarp4j.tools.bench.internal.CpuClock;
import org.iwarp4j.tools.bench.internal.RdmaSession;
import org.iwarp4j.tools.bench.internal.TcpBenchClient;

/**
 * The two ends of a benchmark and their order: the RDMA session (perftest's exchange) and, when
 * both ends are iwarp4j, the plain-TCP comparison on the same port, each size's TCP transfer right
 * after its RDMA one or right before it ({@link Order}), so that a row is complete (and printed) as
 * soon as its size is done. Loopback runs a server end on a
 * thread and the client end in the caller; {@code --server} and {@code HOST} run one end each.
 */
public final class BenchRunner {

    /** How long a failed client waits for the loopback server's queue pairs to close before it describes them. */
    private static final long SERVER_SETTLE_MILLIS = 2000;

    private BenchRunner() {
    }

    /**
     * Which transport each size measures first ({@link BenchSettings#order()}, {@code iwarp bench
     * --order}): RDMA, then raw TCP and TCP with copy, or the two TCP baselines and then RDMA; in
     * interleaved windows, where the rotation of the three starts ({@link WindowRotation}). The
     * command measures RDMA first unless told otherwise; a harness that repeats a run in rounds
     * alternates ({@code scripts/perf-rounds.sh}), so that a drift in the machine's load (or the
     * JIT's work) does not always favour the same side.
     */
    public enum Order {
        RDMA_FIRST,
        TCP_FIRST;

        /** As {@code --order} and the JSON name it: {@code rdma-first}, {@code tcp-first}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * What the client end found: the RDMA outcome, per size plain TCP's figures (or none), and the
     * rows as they were handed to the listener.
     */
    public record ClientResult(RdmaOutcome rdma, List<BandwidthResult> tcpBandwidth, List<LatencyResult> tcpLatency,
                               String tcpNote, List<BenchRow> rows) {

        public ClientResult {
            tcpBandwidth = List.copyOf(tcpBandwidth);
            tcpLatency = List.copyOf(tcpLatency);
            rows = List.copyOf(rows);
        }
    }

    /** Both ends in this process over loopback: the README's main-job command. */
    public static ClientResult loopback(BenchSettings settings, MeterRegistry clientMeters, MeterRegistry serverMeters,
                                        Consumer<String> progress) throws IOException, InterruptedException {
        return loopback(settings, clientMeters, serverMeters, BenchListener.progressOnly(progress));
    }

    /**
     * As {@link #loopback(BenchSettings, MeterRegistry, MeterRegistry, Consumer)}, rows and stop through
     * {@code listener}, in the settings' {@link BenchSettings#order() order}.
     */
    public static ClientResult loopback(BenchSettings settings, MeterRegistry clientMeters, MeterRegistry serverMeters,
                                        BenchListener listener) throws IOException, InterruptedException {
        return loopback(settings, clientMeters, serverMeters, listener, settings.order());
    }

    /**
     * As {@link #loopback(BenchSettings, MeterRegistry, MeterRegistry, BenchListener)}, each size's TCP
     * comparison before or after its RDMA transfer as {@code order} says (whatever the settings say). The rows'
     * CPU figures ({@link BenchRow#rdmaCpu()}) cover both ends: the event loops of this process, and the
     * client's and the server's threads.
     */
    public static ClientResult loopback(BenchSettings settings, MeterRegistry clientMeters, MeterRegistry serverMeters,
                                        BenchListener listener, Order order) throws IOException, InterruptedException {
        return loopback(settings, clientMeters, serverMeters, listener, order, server -> { });
    }

    /** As the public loopback, {@code serverCreated} told the server end before the client starts (for tests). */
    static ClientResult loopback(BenchSettings settings, MeterRegistry clientMeters, MeterRegistry serverMeters,
                                 BenchListener listener, Order order, Consumer<PerftestServer> serverCreated)
            throws IOException, InterruptedException {
        PerftestServer server = new PerftestServer(settings, new InetSocketAddress("127.0.0.1", 0), serverMeters);
        serverCreated.accept(server);
        InetSocketAddress address = server.localAddress();
        CompletableFuture<RdmaOutcome> served = new CompletableFuture<>();
        Thread serverThread = new Thread(() -> {
            try {
                served.complete(serve(server, settings, null));
            } catch (Throwable e) {
                served.completeExceptionally(e);
            }
        }, "iwarp-bench-server");
        serverThread.setDaemon(true);
        // The application threads of both ends: RDMA's (this one, the server's, which answers the
        // latency ping-pong) and TCP's (this one, and each latency echo's responder as it starts).
        CpuClock cpu = new CpuClock(List.of(Thread.currentThread(), serverThread), true);
        server.onTcpApplicationThread(cpu::register);
        serverThread.start();
        try {
            ClientResult result = client(settings.withOrder(order), address, clientMeters, listener, cpu);
            served.get(); // the server's findings reached the client as verdicts
            return result;
        } catch (WorkRequestFailedException e) {
            // While the server end still exists: what its queue pairs saw belongs to the diagnosis.
            e.serverEnd(server.describeQueuePairs(SERVER_SETTLE_MILLIS));
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("server end failed: " + cause, cause);
        } finally {
            if (!served.isDone()) {
                server.close();
                serverThread.interrupt();
            }
        }
    }

    /** The client end: RDMA against {@code server}, each size followed by plain TCP's if the server is iwarp4j. */
    public static ClientResult client(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                                      Consumer<String> progress) throws IOException, InterruptedException {
        return client(settings, server, meters, BenchListener.progressOnly(progress));
    }

    /**
     * As {@link #client(BenchSettings, InetSocketAddress, MeterRegistry, Consumer)}: each size's row goes to
     * {@code listener} as soon as the size is done, and {@code listener} can stop the run ({@link
     * BenchStoppedException} after a partial row); in the settings' {@link BenchSettings#order() order}.
     */
    public static ClientResult client(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                                      BenchListener listener) throws IOException, InterruptedException {
        return client(settings, server, meters, listener, new CpuClock(List.of(Thread.currentThread()), false));
    }

    /** Plain TCP's figures for one size: raw (or latency) and with copy, each with its CPU time. */
    private record TcpFigures(BandwidthResult bandwidth, LatencyResult latency, CpuUsage cpu,
                              BandwidthResult copyBandwidth, CpuUsage copyCpu) {
    }

    private static TcpFigures tcp(TcpBenchClient tcp, BenchSettings settings, BenchListener listener, int size)
            throws IOException, InterruptedException {
        listener.progress("plain TCP " + size + " octets");
        if (settings.test().isLatency()) {
            LatencyResult latency = tcp.latency(size);
            return new TcpFigures(null, latency, tcp.lastCpu(), null, null);
        }
        BandwidthResult raw = tcp.bandwidth(size);
        CpuUsage rawCpu = tcp.lastCpu();
        BandwidthResult copy = null;
        CpuUsage copyCpu = null;
        if (!listener.stopRequested()) {
            listener.progress("plain TCP with copy " + size + " octets");
            copy = tcp.bandwidth(size, true);
            copyCpu = tcp.lastCpu();
        }
        return new TcpFigures(raw, null, rawCpu, copy, copyCpu);
    }

    /**
     * The TCP baselines of one interleaved size ({@link BenchSettings#interleave()}): both opened and
     * warmed up before RDMA's warm-up, then in every window one of each, before or after RDMA's as
     * the {@link WindowRotation} of the three says, so that none always runs first or right after
     * the same other.
     */
    private static final class TcpWindows {
        private final TcpBenchClient tcp;
        private final BenchListener listener;
        private final int size;
        private final int count;
        private final double seconds;
        private final Order order;
        private final TcpBenchClient.Phase raw;
        private final TcpBenchClient.Phase copy;
        private final List<InterleavedWindow> windows = new ArrayList<>();
        /** The current window's TCP figures so far. */
        private final Map<WindowRotation.Side, TcpBenchClient.Window> current =
                new EnumMap<>(WindowRotation.Side.class);

        private TcpWindows(TcpBenchClient tcp, BenchSettings settings, BenchListener listener, int size)
                throws IOException, InterruptedException {
            this.tcp = tcp;
            this.listener = listener;
            this.size = size;
            this.count = settings.interleave();
            this.seconds = settings.durationSeconds() / settings.interleave();
            this.order = settings.order();
            listener.progress("plain TCP " + size + " octets, raw and with copy: connecting and warming up");
            this.raw = tcp.open(size, false);
            boolean opened = false;
            try {
                this.copy = tcp.open(size, true);
                opened = true;
            } finally {
                if (!opened) {
                    raw.close();
                }
            }
        }

        /** Before RDMA's window {@code index}: the baselines the rotation puts before it. */
        void before(int index) throws IOException, InterruptedException {
            current.clear();
            List<WindowRotation.Side> sides = WindowRotation.of(index, order);
            measure(sides.subList(0, sides.indexOf(WindowRotation.Side.RDMA)), index);
        }

        /** After RDMA's window {@code index}: the other baselines, and the window's figures. */
        void after(int index, BandwidthResult rdma, CpuUsage rdmaCpu) throws IOException, InterruptedException {
            List<WindowRotation.Side> sides = WindowRotation.of(index, order);
            measure(sides.subList(sides.indexOf(WindowRotation.Side.RDMA) + 1, sides.size()), index);
            TcpBenchClient.Window rawWindow = current.get(WindowRotation.Side.RAW_TCP);
            TcpBenchClient.Window copyWindow = current.get(WindowRotation.Side.TCP_COPY);
            windows.add(new InterleavedWindow(rdma, rdmaCpu, rawWindow.bandwidth(), rawWindow.cpu(),
                    copyWindow.bandwidth(), copyWindow.cpu()));
        }

        private void measure(List<WindowRotation.Side> sides, int index) throws IOException, InterruptedException {
            for (WindowRotation.Side side : sides) {
                boolean isRaw = side == WindowRotation.Side.RAW_TCP;
                listener.progress((isRaw ? "plain TCP " : "plain TCP with copy ") + size + " octets, window "
                        + (index + 1) + " of " + count);
                current.put(side, tcp.window(isRaw ? raw : copy, seconds));
            }
        }

        /** Closes both baselines' connections; their figures are the windows' added up. */
        TcpFigures finish() {
            raw.close();
            copy.close();
            BandwidthResult rawTotal = BandwidthResult.combined(size, windows.stream().map(InterleavedWindow::tcp).toList());
            BandwidthResult copyTotal = BandwidthResult.combined(size,
                    windows.stream().map(InterleavedWindow::tcpCopy).toList());
            return new TcpFigures(rawTotal.iterations() == 0 ? null : rawTotal, null,
                    CpuUsage.combined(windows.stream().map(InterleavedWindow::tcpCpu).toList()),
                    copyTotal.iterations() == 0 ? null : copyTotal,
                    CpuUsage.combined(windows.stream().map(InterleavedWindow::tcpCopyCpu).toList()));
        }

        void close() {
            raw.close();
            copy.close();
        }
    }

    private static ClientResult client(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                                       BenchListener listener, CpuClock cpuClock)
            throws IOException, InterruptedException {
        List<BandwidthResult> bandwidth = new ArrayList<>();
        List<LatencyResult> latency = new ArrayList<>();
        List<BenchRow> rows = new ArrayList<>();
        // Whether the server compares too (its version message says so): set once the versions are exchanged.
        boolean[] serverCompares = new boolean[1];
        TcpBenchClient tcp = settings.compareTcp() ? new TcpBenchClient(settings, server) : null;
        TcpWindows[] interleaved = new TcpWindows[1];
        try {
            if (tcp != null) {
                tcp.stopWhen(listener::stopRequested);
                tcp.measureCpu(cpuClock);
            }
            TcpFigures[] first = new TcpFigures[1];
            RdmaSession.SizeStart sizeStart = size -> {
                boolean compare = tcp != null && serverCompares[0];
                if (compare && settings.interleaved()) {
                    interleaved[0] = new TcpWindows(tcp, settings, listener, size);
                } else if (settings.order() == Order.TCP_FIRST && compare) {
                    first[0] = tcp(tcp, settings, listener, size);
                }
            };
            RdmaSession.Windows tcpWindows = new RdmaSession.Windows() {
                @Override
                public void before(int size, int window) throws IOException, InterruptedException {
                    if (interleaved[0] != null) {
                        interleaved[0].before(window);
                    }
                }

                @Override
                public void after(int size, int window, BandwidthResult bw, CpuUsage rdmaCpu)
                        throws IOException, InterruptedException {
                    if (interleaved[0] != null) {
                        interleaved[0].after(window, bw, rdmaCpu);
                    }
                }
            };
            RdmaOutcome rdma = PerftestClient.run(settings, server, meters, listener, sizeStart,
                    (size, bw, lat, partial, rdmaCpu) -> {
                TcpFigures figures = first[0];
                first[0] = null;
                List<InterleavedWindow> windows = List.of();
                if (interleaved[0] != null) {
                    windows = interleaved[0].windows;
                    figures = interleaved[0].finish();
                    interleaved[0] = null;
                }
                boolean compare = tcp != null && serverCompares[0];
                if (figures == null && compare && !partial) {
                    figures = tcp(tcp, settings, listener, size);
                }
                if (figures != null) {
                    if (figures.latency() != null) {
                        latency.add(figures.latency());
                    }
                    if (figures.bandwidth() != null) {
                        bandwidth.add(figures.bandwidth());
                    }
                }
                BenchRow row = figures == null
                        ? new BenchRow(size, bw, lat, null, null, partial, null, rdmaCpu, null, null)
                        : new BenchRow(size, bw, lat, figures.bandwidth(), figures.latency(),
                                partial || (compare && listener.stopRequested()), figures.copyBandwidth(), rdmaCpu,
                                figures.cpu(), figures.copyCpu(), windows);
                rows.add(row);
                listener.row(row);
            }, tcpWindows, (version, comparesTcp) -> {
                serverCompares[0] = comparesTcp;
                listener.connected(version);
            }, cpuClock);
            if (!settings.compareTcp()) {
                return new ClientResult(rdma, List.of(), List.of(), "TCP comparison skipped (--no-tcp)", rows);
            }
            if (!rdma.peerIsIwarp4j()) {
                return new ClientResult(rdma, List.of(), List.of(),
                        "no TCP comparison: the server is perftest " + rdma.peerVersion(), rows);
            }
            if (!serverCompares[0]) {
                return new ClientResult(rdma, List.of(), List.of(),
                        "no TCP comparison: the server runs with --no-tcp", rows);
            }
            tcp.done();
            return new ClientResult(rdma, bandwidth, latency, null, rows);
        } finally {
            if (interleaved[0] != null) {
                interleaved[0].close();
            }
            if (tcp != null) {
                tcp.close();
            }
        }
    }

    /**
     * The server end: serves one client's RDMA session and, between iwarp4j ends, the plain-TCP
     * comparison on the same port (from the moment the data connections are up) until the client is
     * done. Closes {@code server}.
     */
    public static RdmaOutcome serve(PerftestServer server, BenchSettings settings, Consumer<String> progress)
            throws IOException, InterruptedException {
        try {
            RdmaOutcome outcome = server.serveOne(progress);
            server.awaitTcpComparison();
            return outcome;
        } finally {
            server.close();
        }
    }

    /** Prints the client's table. */
    public static void print(PrintWriter out, BenchSettings settings, ClientResult result, String where,
                             boolean reportGbits) {
        BenchReport.header(out, settings, where, reportGbits);
        RdmaOutcome rdma = result.rdma();
        for (int i = 0; i < rdma.bandwidth().size(); i++) {
            BandwidthResult tcp = i < result.tcpBandwidth().size() ? result.tcpBandwidth().get(i) : null;
            BandwidthResult copy = i < result.rows().size() ? result.rows().get(i).tcpCopyBandwidth() : null;
            BenchReport.bandwidthLine(out, rdma.bandwidth().get(i), tcp, copy, reportGbits);
        }
        for (int i = 0; i < rdma.latency().size(); i++) {
            LatencyResult tcp = i < result.tcpLatency().size() ? result.tcpLatency().get(i) : null;
            BenchReport.latencyLine(out, rdma.latency().get(i), tcp);
        }
        BenchReport.footer(out, rdma, result.tcpNote());
    }
}
