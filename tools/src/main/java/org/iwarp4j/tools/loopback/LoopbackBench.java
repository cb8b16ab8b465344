package org.iwarp4j.tools.loopback;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;

/**
 * End-to-end loopback measurements against plain TCP in the same JVM and run, for the performance
 * targets: RDMA Write and Read bandwidth, SEND round-trip latency, and many queue pairs on one RNIC.
 * Not a test and not JMH: a driver to run by hand on a quiet machine.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.iwarp4j.benchmarks.loopback.LoopbackBench write --size 65536
 *     (or org.iwarp4j.tools.loopback.LoopbackBench on a class path with the tools module)
 *     [--depth 16] [--seconds 5] [--warmup 2] [--rounds 3] [--markers] [--no-crc] [--emss N | --mulpdu N]
 *     [--transport EPOLL|NIO] [--rdma-only]
 * ... LoopbackBench read  --size 1048576 --depth 8
 * ... LoopbackBench send-lat [--size 8] [--count 20000] [--warmup-count 5000] [--rounds 3]
 * ... LoopbackBench scale [--qps 1000] [--size 65536] [--seconds 5]
 * </pre>
 *
 * Each round runs the RDMA case and its TCP baseline back to back (alternating which goes first)
 * and prints both and their ratio; the last line is the median ratio over the rounds.
 */
public final class LoopbackBench {

    private LoopbackBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: LoopbackBench write|read|send-lat|scale [options] (see the class comment)");
            System.exit(2);
        }
        Map<String, String> options = parse(Arrays.copyOfRange(args, 1, args.length));
        Transport transport = Transport.valueOf(options.getOrDefault("transport", Transport.best().name()));
        MpaSettings.Builder mpa = MpaSettings.builder()
                .markers(options.containsKey("markers") ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .crc(options.containsKey("no-crc") ? NegotiationMode.ACCEPT : NegotiationMode.REQUIRE);
        if (options.containsKey("emss")) {
            mpa.emss(Integer.parseInt(options.get("emss")));
        }
        if (options.containsKey("mulpdu")) {
            mpa.maxSendUlpdu(Integer.parseInt(options.get("mulpdu")));
        }
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        System.out.printf("%s %s, transport %s, %d cores, load average %.2f%n", args[0], options, transport,
                Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        switch (args[0]) {
            case "write":
            case "read":
                bandwidth(args[0].equals("read"), options, mpa.build(), transport, rounds);
                break;
            case "send-lat":
                latency(options, mpa.build(), transport, rounds);
                break;
            case "scale":
                ScaleRun.run(Integer.parseInt(options.getOrDefault("qps", "1000")),
                        Integer.parseInt(options.getOrDefault("size", "65536")),
                        Double.parseDouble(options.getOrDefault("seconds", "5")), mpa.build(), transport);
                break;
            default:
                throw new IllegalArgumentException("unknown case " + args[0]);
        }
    }

    private static void bandwidth(boolean read, Map<String, String> options, MpaSettings mpa, Transport transport,
                                  int rounds) throws Exception {
        int size = Integer.parseInt(options.getOrDefault("size", "65536"));
        int depth = Integer.parseInt(options.getOrDefault("depth", read ? "8" : "16"));
        double seconds = Double.parseDouble(options.getOrDefault("seconds", "5"));
        double warmup = Double.parseDouble(options.getOrDefault("warmup", "2"));
        String what = read ? "READ" : "WRITE";
        List<Double> ratios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            Measurement rdma = null;
            Measurement tcp = null;
            if (options.containsKey("rdma-only")) { // for profiling
                rdma = RdmaStream.run(read, size, depth, warmup, seconds, mpa, transport);
            } else if (r % 2 == 1) {
                rdma = RdmaStream.run(read, size, depth, warmup, seconds, mpa, transport);
                tcp = TcpStream.run(size, depth, warmup, seconds, transport);
            } else {
                tcp = TcpStream.run(size, depth, warmup, seconds, transport);
                rdma = RdmaStream.run(read, size, depth, warmup, seconds, mpa, transport);
            }
            if (tcp == null) {
                System.out.printf("round %d: RDMA %s %.1f MB/s (%.1f MB per event-loop CPU-second)%n", r, what,
                        rdma.megabytesPerSecond(), rdma.megabytesPerCpuSecond());
                continue;
            }
            double ratio = rdma.megabytesPerSecond() / tcp.megabytesPerSecond();
            double cpuRatio = rdma.megabytesPerCpuSecond() / tcp.megabytesPerCpuSecond();
            ratios.add(ratio);
            cpuRatios.add(cpuRatio);
            System.out.printf("round %d: RDMA %s %.1f MB/s, TCP %.1f MB/s, ratio %.2f | per event-loop CPU-second: RDMA %.1f MB, "
                            + "TCP %.1f MB, ratio %.2f%n", r, what, rdma.megabytesPerSecond(), tcp.megabytesPerSecond(),
                    ratio, rdma.megabytesPerCpuSecond(), tcp.megabytesPerCpuSecond(), cpuRatio);
        }
        if (!ratios.isEmpty()) {
            System.out.printf("median ratio %.2f (throughput), %.2f (per event-loop CPU-second)%n", median(ratios),
                    median(cpuRatios));
        }
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

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("not an option: " + args[i]);
            }
            String name = args[i].substring(2);
            if (name.equals("markers") || name.equals("no-crc") || name.equals("rdma-only")) {
                options.put(name, "");
            } else {
                options.put(name, args[++i]);
            }
        }
        return options;
    }
}
