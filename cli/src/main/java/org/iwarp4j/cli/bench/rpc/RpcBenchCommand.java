package org.iwarp4j.cli.bench.rpc;

import org.iwarp4j.cli.UsageErrors;
import org.iwarp4j.tools.rpc.EchoProcedure;
import org.iwarp4j.tools.rpc.RpcBenchClient;
import org.iwarp4j.tools.rpc.RpcBenchReport;
import org.iwarp4j.tools.rpc.RpcBenchServer;
import org.iwarp4j.tools.rpc.RpcBenchSettings;
import org.iwarp4j.tools.rpc.RpcRate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.iwarp4j.cli.UntilStopped;
import org.iwarp4j.tools.bench.MeterPrinter;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp bench rpc}: the sample echo program's ECHO, SINK and SOURCE over RPC-over-RDMA
 * (RFC 8166, on iwarp4j's software RNIC) and over ONC RPC on plain TCP (RFC 5531 record marking),
 * calls/s and MB/s per payload size with the ratio. Without HOST both ends run in this process over
 * loopback; {@code --server} serves until stopped, {@code HOST} is the client of such a server.
 */
@Command(name = "rpc", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"ONC RPC benchmark: ECHO, SINK and SOURCE over RPC-over-RDMA and over plain TCP.",
                "Calls/s and MB/s per payload size (1 KiB ... 1 MiB) with the ratio RDMA / TCP.",
                "Without HOST both ends run in this process over loopback; --server and HOST split them."},
        footer = {"", "MB = 2^20 octets of payload (the opaque data, once per call). Every reply is verified.",
                "Every procedure and size is warmed up on both transports before any is measured (--warmup),",
                "and the transport measured first alternates row by row.",
                "--server serves until Ctrl-C (SIGINT) or SIGTERM, then prints the calls it served per",
                "transport and exits 0 (a second signal exits at once, with 130 or 143).",
                "Exit status: 0 done and verified, 1 a call failed or a reply did not verify,",
                "2 usage error, 3 no connection."})
public final class RpcBenchCommand implements Callable<Integer> {

    static final int EXIT_FAILED = 1;
    static final int EXIT_NO_CONNECTION = 3;
    /** Default RPC-over-RDMA port (NFS/RDMA's 20049 plus one); plain TCP listens on the next. */
    static final int DEFAULT_PORT = 20050;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "HOST", description = "run the client end against an "
            + "iwarp bench rpc --server there")
    String host;

    @Option(names = "--server", description = "run the server end: serve clients until Ctrl-C or SIGTERM, then "
            + "print the totals and exit 0")
    boolean server;

    @Option(names = {"-p", "--port"}, description = "RPC-over-RDMA port (default: ${DEFAULT-VALUE})")
    int port = DEFAULT_PORT;

    @Option(names = "--tcp-port", description = "ONC RPC over TCP port (default: the RDMA port + 1)")
    Integer tcpPort;

    @Option(names = {"-P", "--procedure"}, split = ",", paramLabel = "PROC", converter = ProcedureConverter.class,
            description = "procedures, comma-separated: ECHO, SINK, SOURCE (default: all)")
    List<EchoProcedure> procedures = List.of(EchoProcedure.values());

    @Option(names = {"-s", "--size"}, converter = org.iwarp4j.cli.Octets.Int.class, paramLabel = "SIZE",
            description = "payload octets per call, K/M allowed (default: 1 KiB, 4 KiB, ... 1 MiB, powers of 4)")
    Integer size;

    @Option(names = {"-a", "--all"}, description = "every size from 1 KiB to 1 MiB, powers of two")
    boolean all;

    @Option(names = "--max-size", hidden = true, converter = org.iwarp4j.cli.Octets.Int.class, description = "largest default or -a size (default: 1 MiB)")
    int maxSize = 1 << 20;

    @Option(names = {"-n", "--calls"}, description = "calls per procedure, size and transport (instead of -D)")
    Long calls;

    @Option(names = {"-D", "--duration"}, description = "seconds per procedure, size and transport (default: 0.5)")
    Double duration;

    @Option(names = "--warmup", description = "seconds of calls, in all, over every procedure, size and transport "
            + "before the first measurement, not counted (default: ${DEFAULT-VALUE})")
    double warmup = 3;

    @Option(names = {"-t", "--in-flight"}, description = "calls without a reply at once (default: ${DEFAULT-VALUE})")
    int inFlight = 32;

    @Option(names = "--credits", description = "RPC-over-RDMA credits asked for / granted (default: ${DEFAULT-VALUE})")
    int credits = 32;

    @Option(names = "--inline", description = "RPC-over-RDMA inline Send/Receive size, a multiple of 1024 "
            + "(default: ${DEFAULT-VALUE}, as Linux)")
    int inline = 4096;

    @Option(names = "--transport", description = "TCP implementation: ${COMPLETION-CANDIDATES} "
            + "(default: epoll where available, else NIO)")
    Transport transport = Transport.best();

    @Option(names = "--no-tcp", description = "skip the plain-TCP comparison")
    boolean noTcp;

    @Option(names = "--metrics", description = "print the RNICs' Micrometer meters at the end")
    boolean metrics;

    RpcBenchSettings settings() {
        if (host != null && server) {
            throw new ParameterException(spec.commandLine(), "--server " + host + ": give HOST or --server, not both");
        }
        if (all && size != null) {
            throw new ParameterException(spec.commandLine(), "--all with --size " + size + ": give -s or -a, not both");
        }
        if (calls != null && duration != null) {
            throw new ParameterException(spec.commandLine(), "--calls with --duration: give -n or -D, not both");
        }
        if (port < 0 || port > 65535) {
            throw UsageErrors.invalid(spec.commandLine(), "--port", port, "must be 0..65535");
        }
        if (tcpPort != null && (tcpPort < 0 || tcpPort > 65535)) {
            throw UsageErrors.invalid(spec.commandLine(), "--tcp-port", tcpPort, "must be 0..65535");
        }
        if (inline < 1024 || inline > 262144 || inline % 1024 != 0) {
            throw UsageErrors.invalid(spec.commandLine(), "--inline", inline, "must be a multiple of 1024 from 1K to 256K");
        }
        if (credits < 1 || credits > 65535) {
            throw UsageErrors.invalid(spec.commandLine(), "--credits", credits, "must be 1..65535");
        }
        if (inFlight < 1) {
            throw UsageErrors.invalid(spec.commandLine(), "--in-flight", inFlight, "must be at least 1");
        }
        if (calls != null && calls < 1) {
            throw UsageErrors.invalid(spec.commandLine(), "--calls", calls, "must be at least 1");
        }
        if (duration != null && duration <= 0) {
            throw UsageErrors.invalid(spec.commandLine(), "--duration", duration, "must be more than 0 seconds");
        }
        if (warmup < 0) {
            throw UsageErrors.invalid(spec.commandLine(), "--warmup", warmup, "must be 0 or more seconds");
        }
        if (size != null && (size < 1 || size > 16 << 20)) {
            throw UsageErrors.invalid(spec.commandLine(), "--size", size, "must be 1..16M");
        }
        if (procedures.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--procedure: give at least one of ECHO, SINK, SOURCE");
        }
        List<Integer> sizes = size != null ? List.of(size) : RpcBenchSettings.sizes(all ? 2 : 4, maxSize);
        if (sizes.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--max-size below 1 KiB");
        }
        return new RpcBenchSettings(procedures.stream().distinct().toList(), sizes, calls == null ? 0 : calls,
                duration == null ? 0.5 : duration, warmup, inFlight, inline, credits, transport, !noTcp,
                org.iwarp4j.tools.pcap.CommandCapture.current());
    }

    @Override
    public Integer call() throws Exception {
        RpcBenchSettings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int tcp = tcpPort != null ? tcpPort : port == 0 ? 0 : port + 1;
        SimpleMeterRegistry clientMeters = metrics ? new SimpleMeterRegistry() : null;
        SimpleMeterRegistry serverMeters = metrics ? new SimpleMeterRegistry() : null;
        try {
            if (server) {
                return serve(settings, new InetSocketAddress(port), new InetSocketAddress(tcp), out, err, serverMeters);
            }
            if (host != null) {
                return run(settings, new InetSocketAddress(host, port), new InetSocketAddress(host, tcp),
                        "client of " + host, out, clientMeters);
            }
            try (RpcBenchServer loopback = new RpcBenchServer(settings, new InetSocketAddress("127.0.0.1", 0),
                    new InetSocketAddress("127.0.0.1", 0), serverMeters, null)) {
                int status = run(settings, loopback.rdmaAddress(), loopback.tcpAddress(),
                        "loopback, both ends in this process", out, clientMeters);
                printMeters(out, serverMeters, "server RNIC");
                return status;
            }
        } catch (ConnectFailedException e) {
            err.println("iwarp bench rpc: " + e.getMessage());
            return EXIT_NO_CONNECTION;
        } catch (IOException e) {
            err.println("iwarp bench rpc: " + e.getMessage());
            return EXIT_FAILED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int run(RpcBenchSettings settings, InetSocketAddress rdmaServer, InetSocketAddress tcpServer,
                    String where, PrintWriter out, SimpleMeterRegistry meters) throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        try (RpcBenchClient client = new RpcBenchClient(settings, rdmaServer, tcpServer, meters)) {
            RpcRdmaRequester requester = client.requester();
            RpcBenchReport.header(out, settings, where + " (RDMA " + rdmaServer + ", TCP "
                    + (settings.compareTcp() ? tcpServer : "skipped") + ")", String.format(
                    "inline %d/%d (call/reply), %d credits granted, Send with Invalidate %s",
                    requester.callInlineThreshold(), requester.replyInlineThreshold(), requester.grantedCredits(),
                    requester.remoteInvalidation() ? "on" : "off"));
            for (RpcBenchClient.Rates rates : client.warmUp()) {
                note(problems, "warm-up: ", rates);
            }
            int row = 0;
            for (EchoProcedure procedure : settings.procedures()) {
                for (int s : settings.sizes()) {
                    RpcBenchClient.Rates rates = client.measure(procedure, s, row++);
                    RpcBenchReport.line(out, procedure, rates.rdma(), rates.tcp());
                    note(problems, "", rates);
                }
            }
            RpcBenchReport.footer(out, settings.procedures(), problems,
                    settings.compareTcp() ? null : "TCP comparison skipped (--no-tcp)");
            out.printf("# RPC-over-RDMA: at most %d calls without a reply (credits %d), %d connection%s%n",
                    requester.maxCallsInFlight(), requester.grantedCredits(), requester.connections(),
                    requester.connections() == 1 ? "" : "s");
        }
        printMeters(out, meters, host == null ? "client RNIC" : "this RNIC");
        return problems.isEmpty() ? 0 : EXIT_FAILED;
    }

    /** Adds a line to {@code problems} for each transport of {@code rates} whose replies did not all verify. */
    private static void note(List<String> problems, String phase, RpcBenchClient.Rates rates) {
        note(problems, phase, rates.procedure(), "RPC-over-RDMA", rates.rdma());
        note(problems, phase, rates.procedure(), "TCP", rates.tcp());
    }

    private static void note(List<String> problems, String phase, EchoProcedure procedure, String transport,
                             RpcRate rate) {
        if (rate != null && rate.unverified() > 0) {
            problems.add(String.format("%s%s of %d octets over %s: %d of %d replies did not verify", phase, procedure,
                    rate.size(), transport, rate.unverified(), rate.calls()));
        }
    }

    /**
     * Serves until SIGINT or SIGTERM (caught, so the command returns 0 after its totals) or until
     * this thread is interrupted; then prints what it served.
     */
    private int serve(RpcBenchSettings settings, InetSocketAddress rdmaAddress, InetSocketAddress tcpAddress,
                      PrintWriter out, PrintWriter err, SimpleMeterRegistry meters) throws IOException {
        RpcBenchServer bound;
        try {
            bound = new RpcBenchServer(settings, rdmaAddress, tcpAddress, meters, line -> {
                synchronized (out) {
                    out.println("# " + line);
                    out.flush();
                }
            });
        } catch (IOException e) {
            // cannot listen, in words (RpcBenchServer names both ports); exit 3 as bench --server
            err.println("iwarp bench rpc: " + e.getMessage());
            return EXIT_NO_CONNECTION;
        }
        try (UntilStopped stop = UntilStopped.onSignals("iwarp-bench-rpc-stop")) {
            try (RpcBenchServer server = bound) {
                synchronized (out) {
                    out.printf("# iwarp bench rpc --server: echo program on RPC-over-RDMA port %d and ONC RPC/TCP "
                            + "port %d; stop with Ctrl-C%n", server.rdmaAddress().getPort(),
                            server.tcpAddress().getPort());
                    out.flush();
                }
                stop.await();
                synchronized (out) {
                    out.printf("# served %d calls over RPC-over-RDMA and %d over TCP%n", server.rdmaCallsServed(),
                            server.tcpCallsServed());
                    out.flush();
                }
            }
            printMeters(out, meters, "this RNIC");
        }
        return 0;
    }

    private static void printMeters(PrintWriter out, SimpleMeterRegistry meters, String title) {
        if (meters != null) {
            MeterPrinter.print(out, title, meters);
        }
    }

    /** {@code -P echo,sink}: procedure names in any case. */
    static final class ProcedureConverter implements picocli.CommandLine.ITypeConverter<EchoProcedure> {
        @Override
        public EchoProcedure convert(String value) {
            try {
                return EchoProcedure.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException("ECHO, SINK or SOURCE: " + value);
            }
        }
    }
}
