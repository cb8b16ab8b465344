package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code iwarp bench write}: RDMA Write bandwidth on loopback, with plain TCP's in the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks on loopback, each with the same transfer over plain TCP for comparison.",
        subcommands = {BenchCommand.Write.class})
final class BenchCommand {

    @Command(name = "write", mixinStandardHelpOptions = true,
            description = {"RDMA Write bandwidth between two RNICs over loopback TCP, and plain Netty TCP's",
                    "for the same message size and depth in the same run; prints both and the ratio."})
    static final class Write implements Callable<Integer> {

        @Spec
        private CommandSpec spec;

        @Option(names = {"-s", "--size"}, description = "octets per RDMA Write (default: ${DEFAULT-VALUE})")
        int size = 65536;

        @Option(names = {"-D", "--duration"}, description = "seconds measured per transport (default: ${DEFAULT-VALUE})")
        double seconds = 5;

        @Option(names = "--warmup", description = "seconds before measuring (default: ${DEFAULT-VALUE})")
        double warmup = 2;

        @Option(names = {"-t", "--tx-depth"}, description = "messages in flight (default: ${DEFAULT-VALUE})")
        int depth = 16;

        @Option(names = "--no-crc", description = "ask for no CRC (default: CRC32c on)")
        boolean noCrc;

        @Option(names = "--markers", description = "both ends require markers")
        boolean markers;

        @Option(names = "--max-ulpdu", description = "MULPDU instead of EMSS 1460's (128..64768)")
        int maxUlpdu;

        @Option(names = "--transport", description = "TCP implementation for both runs: ${COMPLETION-CANDIDATES} "
                + "(default: epoll where available, else NIO)")
        Transport transport = Transport.best();

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            MpaSettings mpa = MpaSettings.builder().crc(noCrc ? NegotiationMode.ACCEPT : NegotiationMode.REQUIRE)
                    .markers(markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT).maxSendUlpdu(maxUlpdu).build();
            WriteBandwidth bench = new WriteBandwidth(size, depth, warmup, seconds, mpa, transport);
            WriteBandwidth.Result rdma = bench.rdmaWrite();
            WriteBandwidth.Result tcp = bench.plainTcp();
            out.printf("# RDMA Write, loopback, CRC %s, markers %s, MULPDU %s, depth %d, %s%n", noCrc ? "off" : "on",
                    markers ? "on" : "off", maxUlpdu == 0 ? "from EMSS 1460" : String.valueOf(maxUlpdu), depth,
                    transport);
            out.printf("%-10s %-12s %-16s %-14s %-16s %s%n", "#bytes", "#iterations", "BW average[MB/s]",
                    "MsgRate[Mpps]", "TCP BW[MB/s]", "ratio");
            out.printf("%-10d %-12d %-16.2f %-14.6f %-16.2f %.3f%n", size, rdma.messages, rdma.megabytesPerSecond(),
                    rdma.messagesPerSecond() / 1e6, tcp.megabytesPerSecond(),
                    rdma.megabytesPerSecond() / tcp.megabytesPerSecond());
            out.flush();
            return rdma.messages > 0 && tcp.messages > 0 ? 0 : 1;
        }
    }
}
