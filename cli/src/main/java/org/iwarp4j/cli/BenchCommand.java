package org.iwarp4j.cli;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import org.iwarp4j.cli.bench.BenchReport;
import org.iwarp4j.cli.bench.BenchRunner;
import org.iwarp4j.cli.bench.BenchSettings;
import org.iwarp4j.cli.bench.BenchTest;
import org.iwarp4j.cli.bench.MeterPrinter;
import org.iwarp4j.cli.bench.RdmaOutcome;
import org.iwarp4j.cli.bench.perftest.ConnectFailedException;
import org.iwarp4j.cli.bench.perftest.PerftestServer;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp bench write|read|send|lat-write|lat-send}: perftest's tests on iwarp4j's RNIC, each
 * with the same transfer over plain TCP in the same run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        // The first line alone is iwarp --help's summary: a whole sentence.
        description = {"perftest-style RDMA benchmarks and ONC RPC over RPC-over-RDMA, each against plain TCP.",
                "write, read, send, lat-write, lat-send: ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat,"
                        + " ib_send_lat; rpc: the echo program's calls.",
                "Without HOST both ends run in this process over loopback; --server and HOST split them."},
        subcommands = {BenchCommand.Write.class, BenchCommand.Read.class, BenchCommand.Send.class,
                BenchCommand.LatWrite.class, BenchCommand.LatSend.class,
                org.iwarp4j.cli.bench.rpc.RpcBenchCommand.class},
        footer = {"", "Exit status: 0 done and verified, 1 a transfer failed or the data did not",
                "verify, 2 usage error, 3 no connection."})
final class BenchCommand {

    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_NO_CONNECTION = 3;

    @Command(name = "write", description = "RDMA Write bandwidth (ib_write_bw).")
    static final class Write extends Bench {
        Write() {
            super(BenchTest.WRITE);
        }
    }

    @Command(name = "read", description = "RDMA Read bandwidth (ib_read_bw).")
    static final class Read extends Bench {
        Read() {
            super(BenchTest.READ);
        }
    }

    @Command(name = "send", description = "Send bandwidth (ib_send_bw), with perftest's credits for iWARP.")
    static final class Send extends Bench {
        Send() {
            super(BenchTest.SEND);
        }
    }

    @Command(name = "lat-write", description = "RDMA Write latency ping-pong (ib_write_lat).")
    static final class LatWrite extends Bench {
        LatWrite() {
            super(BenchTest.LAT_WRITE);
        }
    }

    @Command(name = "lat-send", description = "Send latency ping-pong (ib_send_lat).")
    static final class LatSend extends Bench {
        LatSend() {
            super(BenchTest.LAT_SEND);
        }
    }

    /** The options every test shares, named as perftest names them where it has them. */
    @Command(mixinStandardHelpOptions = true, sortOptions = false,
            footer = {"", "Both ends of a split run need the same -s/-a/-n/-q/-t (as with perftest).",
                    "Bandwidth: MB = 2^20 octets (perftest's); latency: one-way usec (half the round trip).",
                    "Exit status: 0 done and verified, 1 a transfer failed or the data did not",
                    "verify, 2 usage error, 3 no connection."})
    abstract static class Bench implements Callable<Integer> {

        private final BenchTest test;

        @Spec
        CommandSpec spec;

        @Parameters(arity = "0..1", paramLabel = "HOST",
                description = "run the client end against a server there (iwarp --server, or perftest's ib_*_bw -R)")
        String host;

        @Option(names = "--server", description = "run the server end: serve one client, then exit")
        boolean server;

        @Option(names = {"-p", "--port"}, description = "TCP port (default: ${DEFAULT-VALUE}, perftest's)")
        int port = 18515;

        @Option(names = {"-s", "--size"}, description = "octets per message (default: 65536 bandwidth, 2 latency)")
        Integer size;

        @Option(names = {"-a", "--all"}, description = "every size from 2 octets to 8 MiB, powers of two")
        boolean all;

        @Option(names = "--max-size", hidden = true, description = "largest size of -a (default: 8 MiB)")
        int maxSize = 1 << 23;

        @Option(names = {"-n", "--iters"}, description = "messages per queue pair and size "
                + "(default: 5000 bandwidth, 1000 latency)")
        Long iterations;

        @Option(names = {"-D", "--duration"}, description = "run this many seconds per size instead of -n")
        Double duration;

        @Option(names = "--warmup", description = "seconds before each size is measured (default: 8 bandwidth, 2 latency, 0.5 per size with -a;"
                + " the RDMA path takes seconds of JIT compiling on a small machine)")
        Double warmup;

        @Option(names = {"-q", "--qp"}, description = "queue pairs (connections) in parallel (default: ${DEFAULT-VALUE})")
        int queuePairs = 1;

        @Option(names = {"-t", "--tx-depth"}, description = "messages in flight per queue pair (default: ${DEFAULT-VALUE})")
        int txDepth = 128;

        @Option(names = "--report-gbits", description = "bandwidth in Gb/sec (10^9 bits) instead of MB/sec")
        boolean reportGbits;

        @Option(names = "--crc", paramLabel = "on|accept|off", converter = CrcConverter.class,
                description = "CRC32c: on (ask for it; default), accept (use it if the peer asks), off (refuse it)")
        NegotiationMode crc = NegotiationMode.REQUIRE;

        @Option(names = "--markers", description = "ask the peer for markers (Linux siw refuses them)")
        boolean markers;

        @Option(names = "--mpa-rev", description = "MPA revision 1 (RFC 5044) or 2 (RFC 6581) (default: ${DEFAULT-VALUE})")
        int mpaRevision = 2;

        @Option(names = "--max-ulpdu", description = "MULPDU (128..64768) instead of the EMSS formula's (RFC 5044 §4.5: the connection's MSS on epoll, else 1460)")
        int maxUlpdu;

        @Option(names = "--transport", description = "TCP implementation: ${COMPLETION-CANDIDATES} "
                + "(default: epoll where available, else NIO; io_uring only if asked for, and where unavailable "
                + "the default is used, with a warning)")
        Transport transport = Transport.best();

        @Option(names = "--no-tcp", description = "skip the plain-TCP comparison")
        boolean noTcp;

        @Option(names = "--metrics", description = "print the RNICs' Micrometer meters at the end")
        boolean metrics;

        Bench(BenchTest test) {
            this.test = test;
        }

        BenchSettings settings() {
            if (host != null && server) {
                throw new ParameterException(spec.commandLine(), "give HOST or --server, not both");
            }
            if (all && size != null) {
                throw new ParameterException(spec.commandLine(), "give -s or -a, not both");
            }
            if (iterations != null && duration != null) {
                throw new ParameterException(spec.commandLine(), "give -n or -D, not both");
            }
            if (mpaRevision != 1 && mpaRevision != 2) {
                throw new ParameterException(spec.commandLine(), "--mpa-rev must be 1 or 2");
            }
            if (maxUlpdu != 0 && (maxUlpdu < 128 || maxUlpdu > 64768)) {
                throw new ParameterException(spec.commandLine(), "--max-ulpdu must be 128..64768");
            }
            if (port < 0 || port > 65535 || queuePairs < 1 || txDepth < 1 || (size != null && size < 1)
                    || (iterations != null && iterations < 1) || (duration != null && duration <= 0)) {
                throw new ParameterException(spec.commandLine(),
                        "-p must be 0..65535; -q, -t, -s, -n and -D must be positive");
            }
            if (test.isLatency() && queuePairs != 1) {
                throw new ParameterException(spec.commandLine(), "latency tests use one queue pair (perftest's too)");
            }
            List<Integer> sizes = all ? BenchSettings.allSizes(maxSize) : List.of(size == null ? test.defaultSize() : size);
            if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s > (1 << 30) / 2 / queuePairs)) {
                throw new ParameterException(spec.commandLine(), "message size × queue pairs too large");
            }
            long iters = duration != null ? 0 : iterations != null ? iterations : test.defaultIterations();
            // Measured on a 2-core VM: after 2 s of warm-up RDMA Write 64 KiB ran at 0.44 of TCP, after
            // 8 s at 1.02; C2 still competes with the event loops for the cores before that.
            double warm = warmup != null ? warmup : all ? 0.5 : test.isLatency() ? 2 : 8;
            Transport usable = Transport.orBest(transport,
                    warning -> spec.commandLine().getErr().println("iwarp bench: " + warning));
            return new BenchSettings(test, sizes, iters, duration == null ? 0 : duration, warm, queuePairs, txDepth,
                    crc, markers, mpaRevision, maxUlpdu, usable, !noTcp);
        }

        @Override
        public Integer call() throws Exception {
            BenchSettings settings = settings();
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            SimpleMeterRegistry clientMeters = metrics ? new SimpleMeterRegistry() : null;
            SimpleMeterRegistry serverMeters = metrics ? new SimpleMeterRegistry() : null;
            Progress progress = new Progress(out);
            try {
                if (server) {
                    return serve(settings, out, serverMeters);
                }
                BenchRunner.ClientResult result;
                String where;
                if (host == null) {
                    where = "loopback, both ends in this process";
                    result = BenchRunner.loopback(settings, clientMeters, serverMeters, progress);
                } else {
                    where = "client of " + host + ":" + port;
                    result = BenchRunner.client(settings, new InetSocketAddress(host, port), clientMeters, progress);
                }
                progress.clear();
                BenchRunner.print(out, settings, result, where, reportGbits);
                printMeters(out, clientMeters, host == null ? "client RNIC" : "this RNIC");
                printMeters(out, host == null ? serverMeters : null, "server RNIC");
                return result.rdma().verifiable() && !result.rdma().verified() ? EXIT_FAILED : 0;
            } catch (ConnectFailedException e) {
                progress.clear();
                err.println("iwarp bench " + test.command() + ": " + e.getMessage());
                return EXIT_NO_CONNECTION;
            } catch (IOException e) {
                progress.clear();
                err.println("iwarp bench " + test.command() + ": " + e.getMessage());
                return EXIT_FAILED;
            } finally {
                out.flush();
                err.flush();
            }
        }

        private int serve(BenchSettings settings, PrintWriter out, SimpleMeterRegistry meters) throws Exception {
            PerftestServer server = new PerftestServer(settings, new InetSocketAddress(port), meters);
            out.printf("# iwarp bench %s --server: waiting for a client on port %d%n", test.command(),
                    server.localAddress().getPort());
            out.flush();
            RdmaOutcome outcome = BenchRunner.serve(server, settings, null);
            out.println("# client: " + (outcome.peerIsIwarp4j() ? "iwarp4j" : "perftest") + " " + outcome.peerVersion());
            if (!outcome.bandwidth().isEmpty()) {
                BenchReport.header(out, settings, "server, the client's report", reportGbits);
                outcome.bandwidth().forEach(r -> BenchReport.bandwidthLine(out, r, null, reportGbits));
            } else {
                // Only write and read clients send their server a report (perftest's xchg_bw_reports).
                out.println("# figures: in the client's output (its " + test.command()
                        + " run sends the server no report)");
            }
            BenchReport.footer(out, outcome, null);
            printMeters(out, meters, "this RNIC");
            return outcome.verifiable() && !outcome.verified() ? EXIT_FAILED : 0;
        }

        private void printMeters(PrintWriter out, SimpleMeterRegistry meters, String title) {
            if (meters != null) {
                MeterPrinter.print(out, title, meters);
            }
        }
    }

    /** {@code --crc on|accept|off}. */
    static final class CrcConverter implements picocli.CommandLine.ITypeConverter<NegotiationMode> {
        @Override
        public NegotiationMode convert(String value) {
            return switch (value.toLowerCase(java.util.Locale.ROOT)) {
                case "on", "require" -> NegotiationMode.REQUIRE;
                case "accept" -> NegotiationMode.ACCEPT;
                case "off" -> NegotiationMode.OFF;
                default -> throw new picocli.CommandLine.TypeConversionException("on, accept or off: " + value);
            };
        }
    }

    /** A progress line on long runs, only when stdout is a terminal; nothing otherwise. */
    static final class Progress implements java.util.function.Consumer<String> {
        private final PrintWriter out;
        private final boolean terminal = System.console() != null;
        private final long start = System.nanoTime();
        private int shown;

        Progress(PrintWriter out) {
            this.out = out;
        }

        @Override
        public synchronized void accept(String what) {
            if (!terminal) {
                return;
            }
            String line = String.format("# %5.1f s: %s ...", (System.nanoTime() - start) / 1e9, what);
            out.print("\r" + line + " ".repeat(Math.max(0, shown - line.length())));
            out.flush();
            shown = line.length();
        }

        synchronized void clear() {
            if (terminal && shown > 0) {
                out.print("\r" + " ".repeat(shown) + "\r");
                out.flush();
                shown = 0;
            }
        }
    }
}
