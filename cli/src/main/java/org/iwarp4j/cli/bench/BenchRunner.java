package org.iwarp4j.cli.bench;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.iwarp4j.cli.bench.perftest.PerftestClient;
import org.iwarp4j.cli.bench.perftest.PerftestServer;
import org.iwarp4j.cli.bench.tcp.TcpBenchClient;
import org.iwarp4j.cli.bench.tcp.TcpBenchServer;

/**
 * The two ends of a benchmark and their order: the RDMA session (perftest's exchange), then, when
 * both ends are iwarp4j, the plain-TCP comparison on the same port. Loopback runs a server end on a
 * thread and the client end in the caller; {@code --server} and {@code HOST} run one end each.
 */
public final class BenchRunner {

    private BenchRunner() {
    }

    /**
     * What the client end found: the RDMA outcome and, per size, plain TCP's figures (or none): raw,
     * and for bandwidth also with the receiver's copy into an application buffer.
     */
    public record ClientResult(RdmaOutcome rdma, List<BandwidthResult> tcpBandwidth, List<LatencyResult> tcpLatency,
                               String tcpNote, List<BandwidthResult> tcpCopyBandwidth) {
        public ClientResult(RdmaOutcome rdma, List<BandwidthResult> tcpBandwidth, List<LatencyResult> tcpLatency,
                            String tcpNote) {
            this(rdma, tcpBandwidth, tcpLatency, tcpNote, List.of());
        }
    }

    /** Both ends in this process over loopback: the README's main-job command. */
    public static ClientResult loopback(BenchSettings settings, MeterRegistry clientMeters, MeterRegistry serverMeters,
                                        Consumer<String> progress) throws IOException, InterruptedException {
        PerftestServer server = new PerftestServer(settings, new InetSocketAddress("127.0.0.1", 0), serverMeters);
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
        serverThread.start();
        try {
            ClientResult result = client(settings, address, clientMeters, progress);
            served.get(); // the server's findings reached the client as verdicts
            return result;
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

    /** The client end: RDMA against {@code server}, then plain TCP if the server is iwarp4j. */
    public static ClientResult client(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                                      Consumer<String> progress) throws IOException, InterruptedException {
        RdmaOutcome rdma = PerftestClient.run(settings, server, meters, progress);
        if (!settings.compareTcp()) {
            return new ClientResult(rdma, List.of(), List.of(), "TCP comparison skipped (--no-tcp)");
        }
        if (!rdma.peerIsIwarp4j()) {
            return new ClientResult(rdma, List.of(), List.of(),
                    "no TCP comparison: the server is perftest " + rdma.peerVersion());
        }
        List<BandwidthResult> bandwidth = new ArrayList<>();
        List<LatencyResult> latency = new ArrayList<>();
        List<BandwidthResult> withCopy = new ArrayList<>();
        try (TcpBenchClient tcp = new TcpBenchClient(settings, server)) {
            for (int size : settings.sizes()) {
                if (progress != null) {
                    progress.accept("plain TCP " + size + " octets");
                }
                if (settings.test().isLatency()) {
                    latency.add(tcp.latency(size));
                } else {
                    bandwidth.add(tcp.bandwidth(size, false));
                    if (progress != null) {
                        progress.accept("plain TCP with copy " + size + " octets");
                    }
                    withCopy.add(tcp.bandwidth(size, true));
                }
            }
            tcp.done();
        }
        return new ClientResult(rdma, bandwidth, latency, null, withCopy);
    }

    /**
     * The server end: serves one client's RDMA session, closes the RNIC, then serves the plain-TCP
     * comparison on the same port until the client is done. Closes {@code server}.
     */
    public static RdmaOutcome serve(PerftestServer server, BenchSettings settings, Consumer<String> progress)
            throws IOException, InterruptedException {
        InetSocketAddress address = server.localAddress();
        RdmaOutcome outcome;
        try {
            outcome = server.serveOne(progress);
        } finally {
            server.close();
        }
        if (settings.compareTcp() && outcome.peerIsIwarp4j()) {
            try (TcpBenchServer tcp = new TcpBenchServer(address, settings.transport(), settings.eventLoopThreads(),
                    settings.maxSize())) {
                tcp.done().get();
            } catch (ExecutionException e) {
                throw new IOException("TCP comparison failed: " + e.getCause(), e.getCause());
            }
        }
        return outcome;
    }

    /** Prints the client's table. */
    public static void print(PrintWriter out, BenchSettings settings, ClientResult result, String where,
                             boolean reportGbits) {
        BenchReport.header(out, settings, where, reportGbits);
        RdmaOutcome rdma = result.rdma();
        for (int i = 0; i < rdma.bandwidth().size(); i++) {
            BandwidthResult tcp = i < result.tcpBandwidth().size() ? result.tcpBandwidth().get(i) : null;
            BandwidthResult copy = i < result.tcpCopyBandwidth().size() ? result.tcpCopyBandwidth().get(i) : null;
            BenchReport.bandwidthLine(out, rdma.bandwidth().get(i), tcp, copy, reportGbits);
        }
        for (int i = 0; i < rdma.latency().size(); i++) {
            LatencyResult tcp = i < result.tcpLatency().size() ? result.tcpLatency().get(i) : null;
            BenchReport.latencyLine(out, rdma.latency().get(i), tcp);
        }
        BenchReport.footer(out, rdma, result.tcpNote());
    }
}
