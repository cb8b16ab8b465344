package org.iwarp4j.tools.loopback;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.BandwidthResult;
import org.iwarp4j.tools.bench.BenchListener;
import org.iwarp4j.tools.bench.BenchRow;
import org.iwarp4j.tools.bench.BenchRunner;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.CpuUsage;

/**
 * End-to-end loopback measurements against plain TCP in the same JVM and run, for the performance
 * targets, repeated in rounds: RDMA Write, Read and Send bandwidth, SEND round-trip latency, and many
 * queue pairs on one RNIC. Not a test and not JMH: a driver to run by hand on a quiet machine.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.iwarp4j.benchmarks.loopback.LoopbackBench write --size 65536
 *     (or org.iwarp4j.tools.loopback.LoopbackBench on a class path with the tools module)
 *     [--depth 16] [--seconds 5] [--warmup 2] [--rounds 3] [--markers] [--no-crc] [--mulpdu N]
 *     [--transport EPOLL|NIO|IO_URING] [--rdma-only]
 * ... LoopbackBench read  --size 1048576 --depth 8
 * ... LoopbackBench send  --size 65536
 * ... LoopbackBench send-lat [--size 8] [--count 20000] [--warmup-count 5000] [--rounds 3]
 * ... LoopbackBench scale [--qps 1000] [--size 65536] [--seconds 5] [--server-process]
 * </pre>
 *
 * <p>The bandwidth cases are {@code iwarp bench}'s harness ({@link BenchRunner#loopback}: perftest's
 * session, the same RDMA loops, the same two plain-TCP baselines, raw and with copy, the same CPU
 * accounting), one size, by duration, in rounds that alternate which side each round measures first;
 * each round prints both and their ratios, the last line the medians. {@code send-lat} keeps its own
 * client loops: it answers every message on the event loops themselves (no application thread between
 * two messages), the floor that {@code iwarp bench lat-send}'s application-thread loop is compared
 * with; its TCP echo is the bench's TCP server. {@code scale} ({@link ScaleRun}) holds both RNICs in this
 * JVM, two sockets per queue pair, or with {@code --server-process} the server RNIC in a child JVM; it
 * checks the open-file limit first and says what it needs.
 */
public final class LoopbackBench {

    private LoopbackBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: LoopbackBench write|read|send|send-lat|scale [options] (see the class comment)");
            System.exit(2);
        }
        Map<String, String> options = parse(Arrays.copyOfRange(args, 1, args.length));
        if (options.containsKey("emss")) {
            throw new IllegalArgumentException("--emss is gone: the bandwidth cases take iwarp bench's settings;"
                    + " --mulpdu N sets the FPDU size");
        }
        Transport transport = Transport.valueOf(options.getOrDefault("transport", Transport.best().name()));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        System.out.printf("%s %s, transport %s, %d cores, load average %.2f%n", args[0], options, transport,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        switch (args[0]) {
            case "write" -> bandwidth(BenchTest.WRITE, options, transport, rounds);
            case "read" -> bandwidth(BenchTest.READ, options, transport, rounds);
            case "send" -> bandwidth(BenchTest.SEND, options, transport, rounds);
            case "send-lat" -> latency(options, mpa(options), transport, rounds);
            case "scale" -> {
                try {
                    ScaleRun.run(Integer.parseInt(options.getOrDefault("qps", "1000")),
                            Integer.parseInt(options.getOrDefault("size", "65536")),
                            Double.parseDouble(options.getOrDefault("seconds", "5")), options, transport,
                            options.containsKey("server-process"));
                } catch (FdBudget.TooFewFileDescriptors e) {
                    System.err.println(e.getMessage());
                    System.exit(1);
                }
            }
            default -> throw new IllegalArgumentException("unknown case " + args[0]);
        }
    }

    /** The MPA settings of {@code --markers}, {@code --no-crc} and {@code --mulpdu N}. */
    static MpaSettings mpa(Map<String, String> options) {
        MpaSettings.Builder mpa = MpaSettings.builder()
                .markers(options.containsKey("markers") ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .crc(options.containsKey("no-crc") ? NegotiationMode.ACCEPT : NegotiationMode.REQUIRE);
        if (options.containsKey("mulpdu")) {
            mpa.maxSendUlpdu(Integer.parseInt(options.get("mulpdu")));
        }
        return mpa.build();
    }

    /** {@code iwarp bench TEST -s SIZE -t DEPTH -D SECONDS --warmup WARMUP} as settings. */
    static BenchSettings settings(BenchTest test, Map<String, String> options, Transport transport) {
        int size = Integer.parseInt(options.getOrDefault("size", "65536"));
        int depth = Integer.parseInt(options.getOrDefault("depth", test == BenchTest.READ ? "8" : "16"));
        double seconds = Double.parseDouble(options.getOrDefault("seconds", "5"));
        double warmup = Double.parseDouble(options.getOrDefault("warmup", "2"));
        return new BenchSettings(test, List.of(size), 0, seconds, warmup, 1, depth,
                options.containsKey("no-crc") ? NegotiationMode.ACCEPT : NegotiationMode.REQUIRE,
                options.containsKey("markers"), 2, Integer.parseInt(options.getOrDefault("mulpdu", "0")), transport,
                !options.containsKey("rdma-only"));
    }

    private static void bandwidth(BenchTest test, Map<String, String> options, Transport transport, int rounds)
            throws Exception {
        BenchSettings settings = settings(test, options, transport);
        String what = test.operation();
        List<Double> ratios = new ArrayList<>();
        List<Double> copyRatios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        List<Double> cpuCopyRatios = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            BenchRunner.ClientResult result = BenchRunner.loopback(settings, null, null, BenchListener.NONE,
                    r % 2 == 1 ? BenchRunner.Order.RDMA_FIRST : BenchRunner.Order.TCP_FIRST);
            if (!result.rdma().verified()) {
                throw new IllegalStateException("round " + r + ": the data did not verify: " + result.rdma().problems());
            }
            BenchRow row = result.rows().get(0);
            if (row.tcpBandwidth() == null) {
                System.out.printf("round %d: %s %.1f MB/s, event-loop CPU %.4f ns per octet%n", r, what,
                        megabytes(row.rdmaBandwidth()), perOctet(row.rdmaCpu()));
                continue;
            }
            ratios.add(row.ratio());
            copyRatios.add(row.copyRatio());
            cpuRatios.add(row.cpuRatio());
            cpuCopyRatios.add(row.cpuRatioCopy());
            System.out.printf("round %d (%s first): %s %.1f MB/s, TCP %.1f MB/s, ratio %.2f, TCP+copy %.1f MB/s,"
                            + " ratio %.2f | event-loop CPU per octet: RDMA %.4f ns, TCP %.4f ns, ratio %.2f,"
                            + " TCP+copy %.4f ns, ratio %.2f%n", r, r % 2 == 1 ? "RDMA" : "TCP", what,
                    megabytes(row.rdmaBandwidth()), megabytes(row.tcpBandwidth()), row.ratio(),
                    megabytes(row.tcpCopyBandwidth()), row.copyRatio(), perOctet(row.rdmaCpu()),
                    perOctet(row.tcpCpu()), row.cpuRatio(), perOctet(row.tcpCopyCpu()), row.cpuRatioCopy());
        }
        if (!ratios.isEmpty()) {
            System.out.printf("median ratio %.2f (throughput vs raw TCP), %.2f (vs TCP+copy); event-loop CPU per octet"
                            + " %.2f (vs raw TCP; lower is less work), %.2f (vs TCP+copy)%n", median(ratios),
                    median(copyRatios), median(cpuRatios), median(cpuCopyRatios));
        }
    }

    /** MB (10^6 octets) per second, as this driver has always printed them. */
    private static double megabytes(BandwidthResult r) {
        return r == null ? Double.NaN : r.averageBytesPerSecond() / 1e6;
    }

    private static double perOctet(CpuUsage c) {
        return c == null ? Double.NaN : c.eventLoopNanosPerOctet();
    }

    private static void latency(Map<String, String> options, MpaSettings mpa, Transport transport, int rounds)
            throws Exception {
        int size = Integer.parseInt(options.getOrDefault("size", "8"));
        int count = Integer.parseInt(options.getOrDefault("count", "20000"));
        int warmupCount = Integer.parseInt(options.getOrDefault("warmup-count", "5000"));
        List<Double> ratios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            RoundTrips rdma;
            RoundTrips tcp;
            if (options.containsKey("rdma-only")) { // for profiling
                rdma = RdmaPingPong.run(size, warmupCount, count, mpa, transport);
                System.out.printf("round %d: SEND round trip %.2f us, CPU %.2f us%n", r, rdma.meanMicros(),
                        rdma.cpuMicros());
                continue;
            }
            if (r % 2 == 1) {
                rdma = RdmaPingPong.run(size, warmupCount, count, mpa, transport);
                tcp = TcpPingPong.run(size, warmupCount, count, transport);
            } else {
                tcp = TcpPingPong.run(size, warmupCount, count, transport);
                rdma = RdmaPingPong.run(size, warmupCount, count, mpa, transport);
            }
            double ratio = rdma.meanMicros() / tcp.meanMicros();
            double cpuRatio = rdma.cpuMicros() / tcp.cpuMicros();
            ratios.add(ratio);
            cpuRatios.add(cpuRatio);
            System.out.printf("round %d: SEND round trip %.2f us, TCP %.2f us, ratio %.2f | event-loop CPU per round trip: "
                    + "SEND %.2f us, TCP %.2f us, ratio %.2f%n", r, rdma.meanMicros(), tcp.meanMicros(), ratio,
                    rdma.cpuMicros(), tcp.cpuMicros(), cpuRatio);
        }
        if (!ratios.isEmpty()) {
            System.out.printf("median ratio %.2f (round trip), %.2f (event-loop CPU per round trip)%n", median(ratios),
                    median(cpuRatios));
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + args[i]);
            }
            String name = args[i].substring(2);
            if (name.equals("markers") || name.equals("no-crc") || name.equals("rdma-only")
                    || name.equals("server-process")) {
                options.put(name, "");
            } else {
                options.put(name, args[++i]);
            }
        }
        return options;
    }
}
