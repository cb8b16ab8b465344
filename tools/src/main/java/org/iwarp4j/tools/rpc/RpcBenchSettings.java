package org.iwarp4j.tools.rpc;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.iwarp4j.tools.pcap.PcapRecording;

/**
 * One {@code iwarp bench rpc} run: which procedures and payload sizes, how long each, how many
 * calls in flight, and the RPC-over-RDMA offer (inline size, credits).
 *
 * @param calls calls per procedure, size and transport; 0 means {@code durationSeconds} instead
 * @param warmupSeconds calls over every procedure, size and transport before the first measurement, in
 *     all, not counted (JIT, pools, TCP windows): see {@link #warmupSlice()}
 * @param inFlight calls without a reply at once (over RDMA at most the credits granted)
 * @param inlineSize RFC 8797 Send and Receive Size this end announces
 * @param credits credits a Requester asks for and a Responder grants (RFC 8166 §3.3.1)
 * @param pcap where the run's connections are recorded, or {@code null}
 */
public record RpcBenchSettings(List<EchoProcedure> procedures, List<Integer> sizes, long calls,
                               double durationSeconds, double warmupSeconds, int inFlight, int inlineSize,
                               int credits, Transport transport, boolean compareTcp, PcapRecording pcap) {

    public RpcBenchSettings {
        procedures = List.copyOf(procedures);
        sizes = List.copyOf(sizes);
        if (procedures.isEmpty() || sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 1 || s > EchoProgram.DEFAULT_MAX_DATA)) {
            throw new IllegalArgumentException("procedures and sizes (1.." + EchoProgram.DEFAULT_MAX_DATA + ") needed");
        }
        if (calls < 0 || (calls == 0 && durationSeconds <= 0) || inFlight < 1) {
            throw new IllegalArgumentException("calls or duration, and calls in flight, must be positive");
        }
        Objects.requireNonNull(transport);
    }

    /** Settings whose connections are not recorded. */
    public RpcBenchSettings(List<EchoProcedure> procedures, List<Integer> sizes, long calls, double durationSeconds,
                            double warmupSeconds, int inFlight, int inlineSize, int credits, Transport transport,
                            boolean compareTcp) {
        this(procedures, sizes, calls, durationSeconds, warmupSeconds, inFlight, inlineSize, credits, transport,
                compareTcp, null);
    }

    /** 1 KiB to {@code max}, powers of {@code step} (2 for -a, 4 by default). */
    public static List<Integer> sizes(int step, int max) {
        java.util.ArrayList<Integer> sizes = new java.util.ArrayList<>();
        for (long s = 1024; s <= max; s *= step) {
            sizes.add((int) s);
        }
        return sizes;
    }

    /** Seconds of warm-up calls for each procedure, size and transport: an even share of the total. */
    public double warmupSlice() {
        return warmupSeconds / (procedures.size() * sizes.size() * (compareTcp ? 2 : 1));
    }

    public boolean byDuration() {
        return calls == 0;
    }

    /** Both ends' RPC-over-RDMA settings: the echo program's binding and this run's offer. */
    public RpcRdmaSettings rdmaSettings() {
        return RpcRdmaSettings.builder().binding(new EchoBinding()).inlineSize(inlineSize).credits(credits).build();
    }

    /** An RNIC with one event loop (one connection), recorded by {@code --pcap} if given. */
    public Rnic rnic(String name, MeterRegistry meters) {
        Rnic.Builder b = Rnic.builder().name(name).transport(transport).eventLoopThreads(1)
                .capture(PcapRecording.recorder(pcap));
        if (meters != null) {
            b.meterRegistry(meters);
        }
        return b.build();
    }
}
