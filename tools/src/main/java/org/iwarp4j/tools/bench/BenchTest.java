package org.iwarp4j.tools.bench;

/**
 * The five benchmarks, named as perftest names its tools: three bandwidth tests (ib_write_bw,
 * ib_read_bw, ib_send_bw) and two latency ping-pongs (ib_write_lat, ib_send_lat).
 */
public enum BenchTest {
    WRITE("write", "RDMA Write", "ib_write_bw", false),
    READ("read", "RDMA Read", "ib_read_bw", false),
    SEND("send", "Send", "ib_send_bw", false),
    LAT_WRITE("lat-write", "RDMA Write", "ib_write_lat", true),
    LAT_SEND("lat-send", "Send", "ib_send_lat", true);

    private final String command;
    private final String operation;
    private final String perftestName;
    private final boolean latency;

    BenchTest(String command, String operation, String perftestName, boolean latency) {
        this.command = command;
        this.operation = operation;
        this.perftestName = perftestName;
        this.latency = latency;
    }

    /** The subcommand of {@code iwarp bench}. */
    public String command() {
        return command;
    }

    /** The RDMA operation measured, in RFC 5040's words. */
    public String operation() {
        return operation;
    }

    /** The perftest tool this one mirrors. */
    public String perftestName() {
        return perftestName;
    }

    public boolean isLatency() {
        return latency;
    }

    /** perftest's default iteration count: 5000 for bandwidth, 1000 for latency. */
    public int defaultIterations() {
        return latency ? 1000 : 5000;
    }

    /** perftest's default message size: 64 KiB for bandwidth, 2 octets for latency. */
    public int defaultSize() {
        return latency ? 2 : 65536;
    }
}
