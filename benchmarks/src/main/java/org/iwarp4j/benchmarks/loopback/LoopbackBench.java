package org.iwarp4j.benchmarks.loopback;

/**
 * The loopback RDMA-versus-TCP driver's old address, kept so that {@code java -cp
 * benchmarks/target/benchmarks.jar org.iwarp4j.benchmarks.loopback.LoopbackBench ...} still runs: the
 * driver lives in the tools module ({@link org.iwarp4j.tools.loopback.LoopbackBench}), where its
 * bandwidth cases run {@code iwarp bench}'s own harness in rounds. The JMH benchmarks stay here.
 */
public final class LoopbackBench {

    private LoopbackBench() {
    }

    public static void main(String[] args) throws Exception {
        org.iwarp4j.tools.loopback.LoopbackBench.main(args);
    }
}
