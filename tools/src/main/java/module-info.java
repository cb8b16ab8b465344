/**
 * The programs behind the {@code iwarp} command, for a JVM program or a test that wants them without a
 * command line: a perftest-compatible client and server ({@link org.iwarp4j.tools.bench.PerftestClient},
 * {@link org.iwarp4j.tools.bench.PerftestServer}) and the RDMA-versus-TCP harness around them
 * ({@link org.iwarp4j.tools.bench.BenchRunner}), rping ({@link org.iwarp4j.tools.rping.RpingClient},
 * {@link org.iwarp4j.tools.rping.RpingServer}), the RPC and NFS benchmarks, and pcap recording of a run's
 * connections ({@link org.iwarp4j.tools.pcap.PcapRecording}).
 *
 * <p>The {@code internal} packages (perftest's wire messages, the transfer engines, the TCP baseline,
 * rping's buffers, the rate limit of the lines a peer can cause) are not exported.
 */
module org.iwarp4j.tools {
    requires transitive org.iwarp4j.rdmap;
    requires transitive org.iwarp4j.nfs;
    // PcapWriteHandler records connections.
    requires transitive io.netty.handler;
    // The plain-TCP baselines use epoll where the RNIC does.
    requires io.netty.transport.classes.epoll;

    // LatencyResult keeps its round trips in an HdrHistogram (no module descriptor: named after its jar).
    requires transitive HdrHistogram;
    // --json: jackson-core's streaming generator.
    requires com.fasterxml.jackson.core;
    // Thread CPU times: iwarp bench's CPU per octet (CpuClock) and LoopbackBench's.
    requires java.management;
    // LoopbackBench scale checks the open-file limit (UnixOperatingSystemMXBean) before it connects.
    requires jdk.management;
    // The TCP comparison server warns of a connection it refused.
    requires org.slf4j;

    exports org.iwarp4j.tools.bench;
    exports org.iwarp4j.tools.loopback;
    exports org.iwarp4j.tools.net;
    exports org.iwarp4j.tools.nfs;
    exports org.iwarp4j.tools.pcap;
    exports org.iwarp4j.tools.rpc;
    exports org.iwarp4j.tools.rping;
}
