package org.iwarp4j.tools.bench;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.pcap.PcapRecording;

/**
 * Everything one benchmark run needs, as perftest's {@code perftest_parameters}: what to measure,
 * the message sizes, how long, how many queue pairs and messages in flight, and the MPA offer.
 * Both ends of a split run must be given the same settings (as with perftest).
 *
 * @param iterations messages per queue pair and size; 0 means run {@code durationSeconds} instead
 * @param warmupSeconds time before each size's measurement, not counted (JIT and TCP warm-up)
 * @param crc this end's CRC offer (RFC 5044 §7.1.1 C bit, see {@link NegotiationMode})
 * @param mpaRevision 1 (RFC 5044) or 2 (RFC 6581)
 * @param maxUlpdu MULPDU of sent FPDUs; 0 derives it from the EMSS (the connection's MSS where the transport reports it, else 1448)
 * @param pcap where every connection of the run (RDMA and TCP) is recorded, or {@code null}
 * @param poll how the latency tests' application threads wait for an answer (RDMA and TCP alike)
 * @param interleave windows per size: 1 measures RDMA, raw TCP and TCP with copy one after the other for
 *     {@code durationSeconds} each; N &gt; 1 (bandwidth tests by duration only) measures them in N
 *     rounds of {@code durationSeconds / N} each, one after the other in every round ({@link
 *     InterleavedWindow}), so that each round's ratios are taken under the same conditions
 * @param order which transport each size measures first (a client's choice; the server ignores it):
 *     RDMA, or raw TCP and TCP with copy; in interleaved windows, where the three's rotation starts
 */
public record BenchSettings(BenchTest test, List<Integer> sizes, long iterations, double durationSeconds,
                            double warmupSeconds, int queuePairs, int txDepth, NegotiationMode crc, boolean markers,
                            int mpaRevision, int maxUlpdu, Transport transport, boolean compareTcp,
                            PcapRecording pcap, PollMode poll, int interleave, BenchRunner.Order order) {

    /** perftest's {@code DEF_RX_SEND}: receives a Send server keeps posted per queue pair. */
    public static final int DEFAULT_RX_DEPTH = 512;
    /** perftest's cycle buffer (a page): the least memory per queue pair. */
    public static final int CYCLE_BUFFER = 4096;

    public BenchSettings {
        Objects.requireNonNull(test);
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 1)) {
            throw new IllegalArgumentException("message sizes must be positive: " + sizes);
        }
        if (iterations < 0 || (iterations == 0 && durationSeconds <= 0)) {
            throw new IllegalArgumentException("iterations must be positive, or a duration given");
        }
        if (queuePairs < 1 || txDepth < 1) {
            throw new IllegalArgumentException("queue pairs and depth must be positive");
        }
        Objects.requireNonNull(crc);
        Objects.requireNonNull(transport);
        Objects.requireNonNull(poll);
        Objects.requireNonNull(order);
        if (interleave < 1) {
            throw new IllegalArgumentException("interleave must be at least 1 window: " + interleave);
        }
        if (interleave > 1 && (test.isLatency() || iterations != 0)) {
            throw new IllegalArgumentException("interleaved windows are for bandwidth tests run by duration");
        }
    }

    /** Settings recorded into {@code pcap}, the phases one after the other (no interleaving). */
    public BenchSettings(BenchTest test, List<Integer> sizes, long iterations, double durationSeconds,
                         double warmupSeconds, int queuePairs, int txDepth, NegotiationMode crc, boolean markers,
                         int mpaRevision, int maxUlpdu, Transport transport, boolean compareTcp, PcapRecording pcap,
                         PollMode poll) {
        this(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc, markers, mpaRevision,
                maxUlpdu, transport, compareTcp, pcap, poll, 1, BenchRunner.Order.RDMA_FIRST);
    }

    /** Settings recorded into {@code pcap}, waiting as perftest does by default ({@link PollMode#BUSY}). */
    public BenchSettings(BenchTest test, List<Integer> sizes, long iterations, double durationSeconds,
                         double warmupSeconds, int queuePairs, int txDepth, NegotiationMode crc, boolean markers,
                         int mpaRevision, int maxUlpdu, Transport transport, boolean compareTcp, PcapRecording pcap) {
        this(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc, markers, mpaRevision,
                maxUlpdu, transport, compareTcp, pcap, PollMode.BUSY);
    }

    /** Settings whose connections are not recorded. */
    public BenchSettings(BenchTest test, List<Integer> sizes, long iterations, double durationSeconds,
                         double warmupSeconds, int queuePairs, int txDepth, NegotiationMode crc, boolean markers,
                         int mpaRevision, int maxUlpdu, Transport transport, boolean compareTcp) {
        this(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc, markers, mpaRevision,
                maxUlpdu, transport, compareTcp, null);
    }

    /** These settings, recorded into {@code recording} ({@code null}: not recorded). */
    public BenchSettings withPcap(PcapRecording recording) {
        return new BenchSettings(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc,
                markers, mpaRevision, maxUlpdu, transport, compareTcp, recording, poll, interleave, order);
    }

    /** These settings, the latency tests waiting as {@code mode} says. */
    public BenchSettings withPoll(PollMode mode) {
        return new BenchSettings(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc,
                markers, mpaRevision, maxUlpdu, transport, compareTcp, pcap, mode, interleave, order);
    }

    /** These settings, each size measured in {@code windows} interleaved windows (see the record's parameter). */
    public BenchSettings withInterleave(int windows) {
        return new BenchSettings(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc,
                markers, mpaRevision, maxUlpdu, transport, compareTcp, pcap, poll, windows, order);
    }

    /** These settings, each size measuring first what {@code first} says (see the record's parameter). */
    public BenchSettings withOrder(BenchRunner.Order first) {
        return new BenchSettings(test, sizes, iterations, durationSeconds, warmupSeconds, queuePairs, txDepth, crc,
                markers, mpaRevision, maxUlpdu, transport, compareTcp, pcap, poll, interleave, first);
    }

    /** Whether each size is measured in interleaved windows. */
    public boolean interleaved() {
        return interleave > 1;
    }

    public int maxSize() {
        return sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** Octets of registered memory per queue pair: perftest's BUFF_SIZE(size, cycle_buffer). */
    public int bufferPerQueuePair() {
        return Math.max(maxSize(), CYCLE_BUFFER);
    }

    public boolean byDuration() {
        return iterations == 0;
    }

    /** Messages in flight per queue pair: perftest's tx depth for bandwidth, 1 for latency. */
    public int depth() {
        return test.isLatency() ? 1 : txDepth;
    }

    /**
     * Receives a Send server posts per queue pair, as perftest computes it: 512, at most the
     * iteration count, made even (perftest's "WA for a bug when rx_depth is odd in SEND").
     * A Send client must know it: it never has more un-credited Sends outstanding.
     */
    public int rxDepth() {
        int depth = DEFAULT_RX_DEPTH;
        if (iterations > 0 && iterations < depth) {
            depth = (int) iterations;
        }
        if (depth % 2 == 1 && sizes.size() == 1) {
            depth++;
        }
        return depth;
    }

    /** This end's MPA offer. RDMA Read needs IRD/ORD: 128, as Linux siw offers for ib_read_bw. */
    public MpaSettings mpa() {
        MpaSettings.Builder b = MpaSettings.builder().revision(mpaRevision).crc(crc)
                .markers(markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT).maxSendUlpdu(maxUlpdu);
        if (test == BenchTest.READ) {
            b.ird(128).ord(128);
        }
        return b.build();
    }

    /** An RNIC for one end: {@code threads} event loops on the chosen transport, meters into {@code meters}. */
    public Rnic rnic(int threads, MeterRegistry meters) {
        // -q connections all come from one client address: the listener's caps must admit them.
        Rnic.Builder b = Rnic.builder().transport(transport).eventLoopThreads(threads)
                .maxConnectionsPerListener(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_LISTENER, queuePairs))
                .maxConnectionsPerAddress(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, queuePairs))
                .capture(PcapRecording.recorder(pcap));
        if (meters != null) {
            b.meterRegistry(meters);
        }
        return b.build();
    }

    /** Event loops per end: one per queue pair, at most one per processor. */
    public int eventLoopThreads() {
        return Math.max(1, Math.min(queuePairs, Runtime.getRuntime().availableProcessors()));
    }

    /** perftest's {@code -a}: 2 octets to {@code max}, powers of two. */
    public static List<Integer> allSizes(int max) {
        java.util.ArrayList<Integer> sizes = new java.util.ArrayList<>();
        for (int s = 2; s <= max && s > 0; s <<= 1) {
            sizes.add(s);
        }
        return sizes;
    }
}
