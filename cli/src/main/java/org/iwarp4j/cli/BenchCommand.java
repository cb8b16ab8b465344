package org.iwarp4j.cli;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import java.nio.file.Path;
import java.util.ArrayList;
import org.iwarp4j.tools.bench.BackgroundLoad;
import org.iwarp4j.tools.bench.BenchChart;
import org.iwarp4j.tools.bench.BenchJson;
import org.iwarp4j.tools.bench.BenchListener;
import org.iwarp4j.tools.bench.BenchReport;
import org.iwarp4j.tools.bench.BenchRow;
import org.iwarp4j.tools.bench.BenchStoppedException;
import org.iwarp4j.tools.net.ConnectErrors;
import org.iwarp4j.tools.bench.BenchRunner;
import org.iwarp4j.tools.bench.WorkRequestFailedException;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.PollMode;
import org.iwarp4j.tools.bench.BenchTest;
import org.iwarp4j.tools.bench.MeterPrinter;
import org.iwarp4j.tools.bench.RdmaOutcome;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.tools.bench.PerftestServer;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.tools.pcap.CommandCapture;
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
                "verify, 2 usage error, 3 no connection, 130 stopped by Ctrl-C."})
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
                    "Sizes take K, M and G (64K, 1M, 2G). perftest's -F, -R, -d, -i, --report_gbits,",
                    "--run_infinitely and --out_json are accepted (see docs/iwarp-command.md).",
                    "Exit status: 0 done and verified, 1 a transfer failed or the data did not",
                    "verify, 2 usage error, 3 no connection, 130 stopped by Ctrl-C."})
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

        @Option(names = {"-s", "--size"}, converter = Octets.Int.class, paramLabel = "SIZE",
                description = "octets per message, K/M/G allowed (default: 64K bandwidth, 2 latency)")
        Integer size;

        @Option(names = {"-a", "--all"}, description = "every size from 2 octets to 8M, powers of two")
        boolean all;

        @Option(names = "--max-size", converter = Octets.Int.class, paramLabel = "SIZE",
                description = "largest size of -a, K/M allowed (default: 8M)")
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

        @Option(names = {"--report-gbits", "--report_gbits"}, description = "bandwidth in Gb/sec (10^9 bits) instead of MB/sec")
        boolean reportGbits;

        @Option(names = "--crc", paramLabel = "on|accept|off", arity = "0..1", fallbackValue = "on",
                converter = CrcConverter.class,
                description = "CRC32c: on (ask for it; the default, and --crc alone), accept (use it if the peer"
                        + " asks), off (refuse it)")
        NegotiationMode crc = NegotiationMode.REQUIRE;

        @Option(names = "--markers", description = "ask the peer for markers (Linux siw refuses them)")
        boolean markers;

        @Option(names = "--mpa-rev", description = "MPA revision 1 (RFC 5044) or 2 (RFC 6581) (default: ${DEFAULT-VALUE})")
        int mpaRevision = 2;

        @Option(names = "--max-ulpdu", description = "MULPDU (128..64768) instead of the EMSS formula's (RFC 5044 §4.5: the connection's MSS on epoll and io_uring, else 1448)")
        int maxUlpdu;

        @Option(names = "--transport", description = "TCP implementation: ${COMPLETION-CANDIDATES} "
                + "(default: epoll where available, else NIO; io_uring only if asked for, and where unavailable "
                + "the default is used, with a warning)")
        Transport transport = Transport.best();

        @Option(names = "--poll", paramLabel = "busy|event", converter = PollConverter.class,
                description = "latency tests: how both ends' application threads wait for the answer, RDMA and"
                        + " TCP alike: busy (poll without sleeping, yielding now and then, perftest's default; best with a free core per end)"
                        + " or event (block until the completing event loop wakes them, perftest's -e; lat-write"
                        + " still watches memory, yielding and parking) (default: busy)")
        PollMode poll = PollMode.BUSY;

        @Option(names = "--no-tcp", description = "skip the plain-TCP comparison")
        boolean noTcp;

        @Option(names = "--interleave", paramLabel = "N",
                description = "bandwidth tests by duration (-D): measure RDMA, raw TCP and TCP with copy in N rounds"
                        + " of D/N seconds each, one after the other, instead of D seconds each in turn, so that each"
                        + " round's ratios share the machine's conditions (a VM's memory speed can change within"
                        + " seconds); the row adds the rounds up and a line gives the medians of their ratios"
                        + " (default: 1; between iwarp4j ends: a perftest server has no TCP comparison)")
        int interleave = 1;

        @Option(names = "--order", paramLabel = "rdma-first|tcp-first", converter = OrderConverter.class,
                description = "which each size measures first: rdma-first (RDMA, raw TCP, TCP with copy; the default)"
                        + " or tcp-first (raw TCP, TCP with copy, RDMA); with --interleave, where the three's order,"
                        + " rotated one step every round, starts (scripts/perf-rounds.sh alternates it between rounds)")
        BenchRunner.Order order = BenchRunner.Order.RDMA_FIRST;

        @Option(names = "--metrics", description = "print the RNICs' Micrometer meters at the end")
        boolean metrics;

        @Option(names = "--json", description = "print one JSON document instead of the table (fields: docs/iwarp-command.md);"
                + " with --server, the server's own document")
        boolean json;

        @Option(names = "--cpu", description = "add CPU columns: the event loops' CPU time per octet (latency: per"
                + " round trip) of RDMA and TCP, and their ratio (always in --json)")
        boolean cpu;

        @Option(names = "--background-load", paramLabel = "THREADS",
                description = "run under a defined load: THREADS busy-looping threads in a separate JVM process,"
                        + " started before the run and stopped after it (recorded in --json)")
        int backgroundLoad;

        @Option(names = {"--out_json", "--out-json"}, paramLabel = "FILE",
                description = "also write the JSON document to FILE (perftest's --out_json)")
        Path outJson;

        @Option(names = "--chart", paramLabel = "FILE.svg|FILE.html",
                description = "draw bandwidth (or latency) against message size, RDMA and plain TCP, into FILE")
        Path chart;

        @Option(names = {"-H", "--report-histogram"},
                description = "latency tests: print each size's latency distribution (HdrHistogram percentiles)")
        boolean histogram;

        @Option(names = {"--run_infinitely", "--run-infinitely"},
                description = "repeat the run until Ctrl-C, printing every pass's rows (perftest's); with"
                        + " --server, serve client after client until Ctrl-C (exit 130), a failed one reported and"
                        + " passed over")
        boolean runInfinitely;

        @Option(names = {"-F", "--CPU-freq"}, description = "perftest's: accepted and ignored (this command gives"
                + " no CPU-frequency warning to silence)")
        boolean cpuFreq;

        @Option(names = {"-R", "--rdma_cm"}, description = "perftest's: accepted; the connection always uses"
                + " perftest's rdma_cm exchange")
        boolean rdmaCm;

        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEVICE", description = "perftest's: accepted, not used"
                + " (the RNIC is this process's, over the TCP stack)")
        String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "perftest's: accepted, not used")
        Integer ibPort;

        Bench(BenchTest test) {
            this.test = test;
        }

        private ParameterException invalid(String option, Object value, String rule) {
            return UsageErrors.invalid(spec.commandLine(), option, value, rule);
        }

        BenchSettings settings() {
            if (host != null && server) {
                throw new ParameterException(spec.commandLine(), "--server " + host + ": give HOST or --server, not both");
            }
            if (all && size != null) {
                throw new ParameterException(spec.commandLine(), "--all with --size " + size + ": give -s or -a, not both");
            }
            if (iterations != null && duration != null) {
                throw new ParameterException(spec.commandLine(), "--iters with --duration: give -n or -D, not both");
            }
            if (mpaRevision != 1 && mpaRevision != 2) {
                throw invalid("--mpa-rev", mpaRevision, "must be 1 or 2");
            }
            if (maxUlpdu != 0 && (maxUlpdu < 128 || maxUlpdu > 64768)) {
                throw invalid("--max-ulpdu", maxUlpdu, "must be 128..64768");
            }
            if (port < 0 || port > 65535) {
                throw invalid("--port", port, "must be 0..65535");
            }
            if (queuePairs < 1) {
                throw invalid("--qp", queuePairs, "must be at least 1");
            }
            if (txDepth < 1) {
                throw invalid("--tx-depth", txDepth, "must be at least 1");
            }
            if (size != null && size < 1) {
                throw invalid("--size", size, "must be at least 1");
            }
            if (iterations != null && iterations < 1) {
                throw invalid("--iters", iterations, "must be at least 1");
            }
            if (duration != null && duration <= 0) {
                throw invalid("--duration", duration, "must be more than 0 seconds");
            }
            if (warmup != null && warmup < 0) {
                throw invalid("--warmup", warmup, "must be 0 or more seconds");
            }
            if (test.isLatency() && queuePairs != 1) {
                throw invalid("--qp", queuePairs, "latency tests use one queue pair (perftest's too)");
            }
            if (backgroundLoad < 0) {
                throw invalid("--background-load", backgroundLoad, "must be 0 (none) or more threads");
            }
            if (interleave < 1) {
                throw invalid("--interleave", interleave, "must be at least 1");
            }
            if (interleave > 1 && (test.isLatency() || duration == null)) {
                throw invalid("--interleave", interleave, "needs a bandwidth test run by duration (-D)");
            }
            if (interleave > 1 && noTcp) {
                throw invalid("--interleave", interleave, "interleaves RDMA with the TCP comparison: not with --no-tcp");
            }
            if (chart != null && !(chart.toString().endsWith(".svg") || chart.toString().endsWith(".html"))) {
                throw invalid("--chart", chart, "must end in .svg or .html");
            }
            List<Integer> sizes = all ? BenchSettings.allSizes(maxSize) : List.of(size == null ? test.defaultSize() : size);
            if (sizes.isEmpty()) {
                throw invalid("--max-size", maxSize, "must be at least 2");
            }
            int largest = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
            if (largest > (1 << 30) / 2 / queuePairs) {
                throw invalid("--size", largest, "message size × queue pairs too large: at most 512M in all");
            }
            long iters = duration != null ? 0 : iterations != null ? iterations : test.defaultIterations();
            // Measured on a 2-core VM: after 2 s of warm-up RDMA Write 64 KiB ran at 0.44 of TCP, after
            // 8 s at 1.02; C2 still competes with the event loops for the cores before that.
            double warm = warmup != null ? warmup : all ? 0.5 : test.isLatency() ? 2 : 8;
            Transport usable = Transport.orBest(transport,
                    warning -> spec.commandLine().getErr().println("iwarp bench: " + warning));
            return new BenchSettings(test, sizes, iters, duration == null ? 0 : duration, warm, queuePairs, txDepth,
                    crc, markers, mpaRevision, maxUlpdu, usable, !noTcp).withPoll(poll).withInterleave(interleave)
                    .withOrder(order);
        }

        /** perftest's options that change nothing here, said once on stderr so that nobody wonders. */
        private void notes(PrintWriter err) {
            String name = "iwarp bench " + test.command();
            if (cpuFreq) {
                err.println(name + ": -F ignored: there is no CPU-frequency warning to silence");
            }
            if (device != null) {
                err.println(name + ": -d " + device + " not used: the RNIC is this process's own, over the TCP stack");
            }
            if (ibPort != null) {
                err.println(name + ": -i " + ibPort + " not used: there are no InfiniBand ports");
            }
            // -R needs no note: the exchange always is perftest's rdma_cm one.
            err.flush();
        }

        @Override
        public Integer call() throws Exception {
            BenchSettings settings = settings().withPcap(CommandCapture.current());
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            notes(err);
            SimpleMeterRegistry clientMeters = metrics ? new SimpleMeterRegistry() : null;
            SimpleMeterRegistry serverMeters = metrics ? new SimpleMeterRegistry() : null;
            BackgroundLoad load = null;
            try {
                if (backgroundLoad > 0) {
                    try {
                        load = BackgroundLoad.start(backgroundLoad);
                    } catch (IOException e) {
                        err.println("iwarp bench " + test.command() + ": " + e.getMessage());
                        return EXIT_FAILED;
                    }
                    if (!json) {
                        err.println("iwarp bench " + test.command() + ": background load: " + backgroundLoad
                                + " busy thread(s) in process " + load.pid());
                    }
                }
                BackgroundLoad.Info loadInfo = load == null ? null : load.info();
                if (server) {
                    while (true) {
                        PerftestServer listening = listen(settings, err, serverMeters);
                        if (listening == null) {
                            return EXIT_NO_CONNECTION;
                        }
                        int status = serve(listening, settings, out, err, serverMeters, loadInfo);
                        if (!runInfinitely) {
                            return status;
                        }
                        // A failed client has had its line (and document): the next one is served all the same.
                    }
                }
                return runClient(settings, out, err, clientMeters, serverMeters, loadInfo);
            } catch (RuntimeException e) { // the last resort (the runs catch their own): one line, not a stack trace
                err.println("iwarp bench " + test.command() + ": " + unexpected(e));
                return EXIT_FAILED;
            } finally {
                if (load != null) {
                    load.close();
                }
                out.flush();
                err.flush();
            }
        }

        private int runClient(BenchSettings settings, PrintWriter out, PrintWriter err, SimpleMeterRegistry clientMeters,
                              SimpleMeterRegistry serverMeters, BackgroundLoad.Info load) throws Exception {
            String name = "iwarp bench " + test.command();
            InetSocketAddress address = null;
            if (host != null) {
                address = new InetSocketAddress(host, port);
                if (address.isUnresolved()) {
                    err.println(name + ": no such host: " + host);
                    return EXIT_NO_CONNECTION;
                }
            }
            String where = host == null ? "loopback, both ends in this process" : "client of " + host + ":" + port;
            boolean table = !json;
            List<BenchRow> rows = new ArrayList<>();
            BenchRunner.ClientResult result = null;
            boolean interrupted = false;
            String error = null;
            WorkRequestFailedException failedRequest = null;
            int status;
            try (StopOnInterrupt stop = StopOnInterrupt.install();
                 ProgressLine progress = new ProgressLine(out, table && ProgressLine.stdoutIsTerminal())) {
                BenchListener listener = new BenchListener() {
                    private boolean headed;

                    @Override
                    public void connected(String peerVersion) {
                        // only a run that reached its server gets a table: a refused one is one line on stderr
                        if (table && !headed) {
                            headed = true;
                            progress.clear();
                            BenchReport.header(out, settings, where, reportGbits, cpu);
                        }
                    }

                    @Override
                    public void progress(String what) {
                        progress.set(what);
                    }

                    @Override
                    public void row(BenchRow row) {
                        rows.add(row);
                        if (table) {
                            progress.clear();
                            BenchReport.row(out, row, reportGbits, cpu);
                            if (histogram) {
                                BenchReport.histogram(out, row);
                            }
                        }
                    }

                    @Override
                    public boolean stopRequested() {
                        return stop.getAsBoolean();
                    }
                };
                try {
                    do {
                        result = host == null
                                ? BenchRunner.loopback(settings, clientMeters, serverMeters, listener)
                                : BenchRunner.client(settings, address, clientMeters, listener);
                    } while (runInfinitely && !stop.getAsBoolean());
                    status = result.rdma().verifiable() && !result.rdma().verified() ? EXIT_FAILED : 0;
                    if (runInfinitely && status == 0) { // only Ctrl-C ends it, here between two passes
                        interrupted = true;
                        status = StopOnInterrupt.EXIT_INTERRUPTED;
                    }
                } catch (BenchStoppedException | InterruptedException e) {
                    if (!stop.getAsBoolean()) {
                        throw e;
                    }
                    interrupted = true;
                    status = StopOnInterrupt.EXIT_INTERRUPTED;
                } catch (IOException e) {
                    if (stop.getAsBoolean()) { // Ctrl-C broke a wait on the peer
                        interrupted = true;
                        status = StopOnInterrupt.EXIT_INTERRUPTED;
                    } else {
                        error = e.getMessage();
                        if (e instanceof WorkRequestFailedException failed) {
                            failedRequest = failed;
                        }
                        status = e instanceof ConnectFailedException ? EXIT_NO_CONNECTION : EXIT_FAILED;
                    }
                } catch (RuntimeException e) { // a defect, not a peer's doing: still one line and the document
                    error = unexpected(e);
                    status = EXIT_FAILED;
                }
                progress.clear();
            }
            Thread.interrupted(); // a late interrupt from the Ctrl-C watchdog must not break the output
            if (interrupted && table) {
                out.println(BenchReport.LINE);
                out.println("# interrupted (Ctrl-C): " + rows.stream().filter(r -> !r.partial()).count()
                        + " size(s) done" + (rows.stream().anyMatch(BenchRow::partial) ? ", one partial" : ""));
            } else if (error != null) {
                err.println(name + ": " + error);
                // A failed work request: which, why, and both ends' queue pairs (a rare failure
                // can only be understood from what the failed run printed).
                if (failedRequest != null) {
                    failedRequest.printDiagnosis(err, name + ":   ");
                }
            } else if (table) {
                BenchReport.footer(out, result.rdma(), result.tcpNote());
            }
            if (json || outJson != null) {
                BenchJson.Run run = new BenchJson.Run(IwarpCommand.VERSION, settings, host == null ? "loopback" : "client",
                        host == null ? null : ConnectErrors.where(address), rows, result == null || interrupted ? null
                        : result.rdma(), result == null ? null : result.tcpNote(), interrupted, error, status, load);
                if (json) {
                    java.io.ByteArrayOutputStream doc = new java.io.ByteArrayOutputStream();
                    BenchJson.write(doc, run);
                    out.print(doc.toString(java.nio.charset.StandardCharsets.UTF_8));
                    out.flush();
                }
                if (outJson != null) {
                    status = writeFile(outJson, name, err, status, o -> BenchJson.write(o, run));
                }
            }
            if (chart != null) {
                byte[] drawing = (chart.toString().endsWith(".html") ? BenchChart.html(settings, rows, reportGbits)
                        : BenchChart.svg(settings, rows, reportGbits)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                status = writeFile(chart, name, err, status, o -> o.write(drawing));
            }
            if (table && !interrupted && error == null) {
                printMeters(out, clientMeters, host == null ? "client RNIC" : "this RNIC");
                printMeters(out, host == null ? serverMeters : null, "server RNIC");
            }
            return status;
        }

        /** Writes an output file; a failure is reported and turns a success into status 1. */
        private static int writeFile(Path file, String name, PrintWriter err, int status, FileBody body) {
            try (java.io.OutputStream o = java.nio.file.Files.newOutputStream(file)) {
                body.write(o);
                return status;
            } catch (IOException e) {
                err.println(name + ": cannot write " + file + ": " + (e.getMessage() == null ? e : e.getMessage()));
                return status == 0 ? EXIT_FAILED : status;
            }
        }

        @FunctionalInterface
        private interface FileBody {
            void write(java.io.OutputStream out) throws IOException;
        }

        /** A server listening on the port, or null when it cannot listen (said on {@code err}). */
        private PerftestServer listen(BenchSettings settings, PrintWriter err, SimpleMeterRegistry meters)
                throws InterruptedException {
            InetSocketAddress bindTo = new InetSocketAddress(port);
            try {
                return new PerftestServer(settings, bindTo, meters);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) { // Netty's bind failure may be an undeclared checked exception
                err.println("iwarp bench " + test.command() + ": " + ConnectErrors.cannotListen(bindTo, e));
                return null;
            }
        }

        /** What the one line says of an unchecked exception: there is no peer's message to pass on. */
        private static String unexpected(RuntimeException e) {
            return "unexpected failure: " + e;
        }

        private int serve(PerftestServer server, BenchSettings settings, PrintWriter out, PrintWriter err,
                          SimpleMeterRegistry meters, BackgroundLoad.Info load) throws Exception {
            int boundPort = server.localAddress().getPort();
            String name = "iwarp bench " + test.command();
            // With --json stdout is the document alone; the waiting line goes to stderr (a script waits for it).
            (json ? err : out).printf("# %s --server: waiting for a client on port %d%n", name, boundPort);
            (json ? err : out).flush();
            RdmaOutcome outcome;
            int status;
            String error = null;
            try {
                outcome = BenchRunner.serve(server, settings, null);
                status = outcome.verifiable() && !outcome.verified() ? EXIT_FAILED : 0;
            } catch (ConnectFailedException e) {
                outcome = null;
                error = e.getMessage();
                status = EXIT_NO_CONNECTION;
            } catch (IOException e) {
                outcome = null;
                error = e.getMessage();
                status = EXIT_FAILED;
            } catch (RuntimeException e) { // a defect, not a peer's doing: still one line and the document
                outcome = null;
                error = unexpected(e);
                status = EXIT_FAILED;
            }
            if (error != null) {
                err.println(name + ": " + error);
            }
            if (json || outJson != null) {
                BenchJson.ServerRun run = new BenchJson.ServerRun(IwarpCommand.VERSION, settings, boundPort, outcome,
                        false, error, status, load);
                if (json) {
                    java.io.ByteArrayOutputStream doc = new java.io.ByteArrayOutputStream();
                    BenchJson.write(doc, run);
                    out.print(doc.toString(java.nio.charset.StandardCharsets.UTF_8));
                    out.flush();
                }
                if (outJson != null) {
                    status = writeFile(outJson, name, err, status, o -> BenchJson.write(o, run));
                }
            }
            if (outcome == null || json) {
                return status;
            }
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
            return status;
        }

        private void printMeters(PrintWriter out, SimpleMeterRegistry meters, String title) {
            if (meters != null) {
                MeterPrinter.print(out, title, meters);
            }
        }
    }

    /** {@code --poll busy|event}, in any case. */
    static final class PollConverter implements picocli.CommandLine.ITypeConverter<PollMode> {
        @Override
        public PollMode convert(String value) {
            return switch (value.toLowerCase(java.util.Locale.ROOT)) {
                case "busy" -> PollMode.BUSY;
                case "event" -> PollMode.EVENT;
                default -> throw new picocli.CommandLine.TypeConversionException("must be busy or event");
            };
        }
    }

    /** {@code --order rdma-first|tcp-first}, in any case. */
    static final class OrderConverter implements picocli.CommandLine.ITypeConverter<BenchRunner.Order> {
        @Override
        public BenchRunner.Order convert(String value) {
            for (BenchRunner.Order o : BenchRunner.Order.values()) {
                if (o.label().equalsIgnoreCase(value)) {
                    return o;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("must be rdma-first or tcp-first");
        }
    }

    /** {@code --crc[=on|accept|off]}: the one form every command takes ({@code --crc} alone is {@code on}). */
    static final class CrcConverter implements picocli.CommandLine.ITypeConverter<NegotiationMode> {
        @Override
        public NegotiationMode convert(String value) {
            return switch (value.toLowerCase(java.util.Locale.ROOT)) {
                case "on", "require" -> NegotiationMode.REQUIRE;
                case "accept" -> NegotiationMode.ACCEPT;
                case "off" -> NegotiationMode.OFF;
                default -> throw new picocli.CommandLine.TypeConversionException("must be on, accept or off");
            };
        }
    }
}
