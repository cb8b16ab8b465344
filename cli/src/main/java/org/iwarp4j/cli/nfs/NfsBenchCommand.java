package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.FilePattern;
import org.iwarp4j.tools.nfs.NfsBenchReport;
import org.iwarp4j.tools.nfs.NfsBenchRun;
import org.iwarp4j.tools.nfs.NfsBenchSettings;
import org.iwarp4j.tools.nfs.NfsFailures;
import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import org.iwarp4j.tools.nfs.NfsTransport;
import org.iwarp4j.tools.nfs.SteadyState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import org.iwarp4j.cli.StopOnInterrupt;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.iwarp4j.tools.bench.MeterPrinter;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.rdmap.Rnic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp nfs bench [SERVER:/dir]}: NFS WRITE and READ throughput (the version {@code --vers}
 * names, by default the highest the server offers) over RPC-over-RDMA and over TCP against the same
 * server in one run, with the ratio; every pass verified by CRC32C.
 * Without SERVER (or with {@code --loopback}) it serves a temporary directory in this process.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"NFS READ and WRITE throughput over RPC-over-RDMA and over TCP against the same server,",
                "with the ratio. Without SERVER (or with --loopback) an iwarp4j server on a temporary directory",
                "runs in this process. Writes, reads and removes one file; every pass is verified by CRC32C."},
        footer = {"", "Exit status: 0 done and verified, 1 a call failed or the data did not verify,",
                "2 usage error, 3 no connection, 130 stopped by Ctrl-C (nothing printed; its files removed)."})
final class NfsBenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER:/dir", description = "a directory on a server to write the "
            + "file into (default: --loopback)")
    String location;

    @Option(names = "--loopback", description = "serve a temporary directory in this process (the default)")
    boolean loopback;

    @Option(names = "--dir", description = "with --loopback: export this directory instead of a temporary one")
    Path directory;

    @Option(names = {"-s", "--file-size"}, converter = org.iwarp4j.cli.Octets.class, description = "the file's size "
            + "(default: 64m; k, m, g: KiB, MiB, GiB)")
    long fileSize = 64 << 20;

    @Option(names = "--rsize", converter = org.iwarp4j.cli.Octets.class, description = "octets per READ (default: 1m)")
    long rsize = 1 << 20;

    @Option(names = "--wsize", converter = org.iwarp4j.cli.Octets.class, description = "octets per WRITE (default: 1m)")
    long wsize = 1 << 20;

    @Option(names = {"-n", "--count"}, description = "passes over the file per operation and transport "
            + "(default: 2)")
    Integer count;

    @Option(names = {"-D", "--duration"}, description = "seconds of passes per operation and transport, instead of -n")
    Double duration;

    @Option(names = "--warmup", description = "WRITE and READ passes before measuring (default: ${DEFAULT-VALUE})")
    int warmup = 1;

    @Option(names = "--steady-share", description = "after --warmup, rounds (a WRITE and a READ pass per transport) "
            + "until one spends under this percentage of its time in JIT compilation (default: ${DEFAULT-VALUE})")
    double steadyShare = SteadyState.DEFAULT_SHARE * 100;

    @Option(names = "--steady-cap", description = "seconds after which no such round begins; 0: none "
            + "(default: ${DEFAULT-VALUE})")
    double steadyCap = SteadyState.DEFAULT_CAP_SECONDS;

    @Option(names = {"-t", "--in-flight"}, description = "READs or WRITEs in flight (default: ${DEFAULT-VALUE})")
    int inFlight = 8;

    @Option(names = "--no-tcp", description = "skip NFS over TCP")
    boolean noTcp;

    @Option(names = "--metrics", description = "print the RNICs' Micrometer meters at the end")
    boolean metrics;

    @Mixin
    NfsServerOptions server;

    NfsBenchSettings settings() {
        String problem = server.problem();
        if (problem == null && location != null && loopback) {
            problem = "give SERVER:/dir or --loopback, not both";
        } else if (problem == null && directory != null && location != null) {
            problem = "--dir is for --loopback";
        } else if (problem == null && count != null && duration != null) {
            problem = "give -n or -D, not both";
        } else if (problem == null && fileSize < 1) {
            problem = "--file-size " + fileSize + ": must be at least 1";
        } else if (problem == null && (rsize < 4096 || rsize > 16 << 20)) {
            problem = "--rsize " + rsize + ": must be 4K..16M";
        } else if (problem == null && (wsize < 4096 || wsize > 16 << 20)) {
            problem = "--wsize " + wsize + ": must be 4K..16M";
        } else if (problem == null && inFlight < 1) {
            problem = "--in-flight " + inFlight + ": must be at least 1";
        } else if (problem == null && warmup < 0) {
            problem = "--warmup " + warmup + ": must be 0 or more";
        } else if (problem == null && !(steadyShare > 0 && steadyShare <= 100)) {
            problem = "--steady-share " + steadyShare + ": must be more than 0 and at most 100 (percent)";
        } else if (problem == null && !(steadyCap >= 0)) {
            problem = "--steady-cap " + steadyCap + ": must be 0 or more seconds";
        } else if (problem == null && count != null && count < 1) {
            problem = "--count " + count + ": must be at least 1";
        } else if (problem == null && duration != null && duration <= 0) {
            problem = "--duration " + duration + ": must be more than 0 seconds";
        } else if (problem == null && directory != null && !Files.isDirectory(directory)) {
            problem = "--dir " + directory + ": not a directory";
        }
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        List<NfsTransport> transports = noTcp ? List.of(NfsTransport.RDMA) : List.of(NfsTransport.RDMA, NfsTransport.TCP);
        return new NfsBenchSettings(fileSize, (int) rsize, (int) wsize, duration != null ? 0 : count == null ? 2 : count,
                duration == null ? 0 : duration, warmup, inFlight, transports, steadyShare / 100, steadyCap);
    }

    @Override
    public Integer call() {
        NfsBenchSettings settings = settings();
        NfsLocation target;
        try {
            target = location == null ? null : NfsLocation.parse(location);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SimpleMeterRegistry clientMeters = metrics ? new SimpleMeterRegistry() : null;
        if (target == null) {
            checkFreeSpace(settings, directory != null ? directory : Path.of(System.getProperty("java.io.tmpdir")));
        }
        // Ctrl-C interrupts the run at once: its finally blocks remove the files (here and on the server).
        try (StopOnInterrupt stop = StopOnInterrupt.install(0)) {
            return call(settings, target, out, err, clientMeters, stop);
        }
    }

    /**
     * Every transport's file exists at once (each is written, then read back), on the same file system
     * as the exported directory in loopback: refuse to start rather than fill it.
     */
    private void checkFreeSpace(NfsBenchSettings settings, Path dir) {
        long needed = settings.fileSize() * settings.transports().size();
        long free;
        try {
            free = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return; // nothing to go by: the server's own ENOSPC will say it
        }
        if (needed > free) {
            throw new ParameterException(spec.commandLine(), "--file-size " + NfsBenchReport.octets(settings.fileSize())
                    + ": needs " + NfsBenchReport.octets(needed) + " free in " + dir + " (one file per transport), "
                    + NfsBenchReport.octets(free) + " free");
        }
    }

    private int call(NfsBenchSettings settings, NfsLocation target, PrintWriter out, PrintWriter err,
                     SimpleMeterRegistry clientMeters, StopOnInterrupt stop) {
        try {
            if (target != null) {
                String where = "server " + target + " (RDMA port " + server.rdmaPort + ", TCP port " + server.port + ")";
                return run(settings, target, server, null, where, out, clientMeters, null);
            }
            return loopback(settings, out, clientMeters);
        } catch (InterruptedException e) {
            if (stop.getAsBoolean()) {
                Thread.interrupted();
                err.println("iwarp nfs bench: interrupted (Ctrl-C); the benchmark's files are removed");
                return StopOnInterrupt.EXIT_INTERRUPTED;
            }
            Thread.currentThread().interrupt();
            err.println("iwarp nfs bench: interrupted");
            return NfsFailures.EXIT_FAILED;
        } catch (ParameterException e) {
            throw e; // a usage error found once connected (no room on the server): one line, exit 2
        } catch (Exception e) {
            if (stop.getAsBoolean()) {
                Thread.interrupted();
                err.println("iwarp nfs bench: interrupted (Ctrl-C); the benchmark's files are removed");
                return StopOnInterrupt.EXIT_INTERRUPTED;
            }
            err.println("iwarp nfs bench: " + NfsFailures.describe(e));
            return NfsFailures.exitStatus(e);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** An iwarp4j server on a temporary directory (or --dir), RDMA and TCP on ephemeral loopback ports. */
    private int loopback(NfsBenchSettings settings, PrintWriter out, SimpleMeterRegistry clientMeters)
            throws IOException, InterruptedException {
        Path dir = directory != null ? directory : Files.createTempDirectory("iwarp-nfs-bench");
        // A second Ctrl-C (or SIGTERM) ends the JVM without the finally below: the hook still removes it.
        Thread removeOnExit = new Thread(() -> deleteTree(dir), "iwarp-nfs-bench-cleanup");
        if (directory == null) {
            Runtime.getRuntime().addShutdownHook(removeOnExit);
        }
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        keepMedians(serverMeters);
        try (Rnic rnic = Rnic.builder().name("nfs-server").eventLoopThreads(1).meterRegistry(serverMeters)
                .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(org.iwarp4j.tools.pcap.CommandCapture.current())).build();
             NfsServer nfs = NfsServer.builder(dir).exportName("/export")
                     // its own client in this process is uid 0 and writes: rw,no_root_squash, loopback only
                     .exportOptions(ExportOptions.builder().readWrite().rootSquash(false).build())
                     .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(rnic).meterRegistry(serverMeters)
                     .maxReadWrite(Math.max(1 << 20, settings.rsize()), Math.max(1 << 20, settings.wsize()))
                     .start()) {
            NfsServerOptions options = new NfsServerOptions();
            options.port = nfs.tcpPort();
            options.rdmaPort = nfs.rdmaPort();
            options.export = "/export";
            options.version = server.version;
            String where = "loopback: an iwarp4j server on " + nfs.directory() + " in this process";
            int status = run(settings, new NfsLocation("127.0.0.1", "/export"), options, nfs.directory(), where, out,
                    clientMeters, serverMeters);
            if (metrics) {
                MeterPrinter.print(out, "server RNIC", serverMeters);
            }
            return status;
        } finally {
            if (directory == null) {
                deleteTree(dir);
                try {
                    Runtime.getRuntime().removeShutdownHook(removeOnExit);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs anyway; the tree is gone already
                }
            }
        }
    }

    private int run(NfsBenchSettings settings, NfsLocation target, NfsServerOptions options, Path serverDirectory,
                    String where, PrintWriter out, SimpleMeterRegistry clientMeters, SimpleMeterRegistry serverMeters)
            throws IOException, InterruptedException {
        long seed = ThreadLocalRandom.current().nextLong();
        NfsBenchRun bench = new NfsBenchRun(settings, new FilePattern(seed));
        String name = String.format(".iwarp-nfs-bench-%016x", seed);
        List<NfsBenchRun.Result> results = new ArrayList<>();
        List<NfsSession> sessions = new ArrayList<>();
        List<NfsBenchRun.Target> targets = new ArrayList<>();
        SteadyState.Outcome warmedUp;
        try {
            for (NfsTransport transport : settings.transports()) {
                NfsSession session = NfsSession.open(target, options.access(), transport, settings.rsize(),
                        settings.wsize(), settings.inFlight(), transport == NfsTransport.RDMA ? clientMeters : null,
                        org.iwarp4j.tools.pcap.CommandCapture.current(),
                        sessions.isEmpty() ? options.version : sessions.get(0).version());
                sessions.add(session);
                if (sessions.size() == 1) {
                    // refused before anything is printed; the version is known once the first session
                    // is made (--vers, or what the server offers)
                    checkServerSpace(settings, session, target);
                    NfsBenchReport.header(out, settings, where, "NFSv" + session.version().text());
                }
                targets.add(bench.create(session, name + "-" + transport.name().toLowerCase(Locale.ROOT),
                        serverDirectory));
            }
            // every transport warms up before any is measured, until the JIT is quiet; then they take turns
            warmedUp = bench.warmUp(targets, SteadyState.ofThisJvm(settings.steadyShare(), settings.steadyCapSeconds()));
            results.addAll(bench.measure(targets));
        } finally {
            // Interrupted (Ctrl-C)? The REMOVE calls must still go out: clear the flag while they do.
            boolean interrupted = Thread.interrupted();
            try {
                targets.forEach(NfsBenchRun.Target::remove);
                sessions.forEach(NfsSession::close);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        NfsBenchRun.Result rdma = find(results, NfsTransport.RDMA);
        NfsBenchRun.Result tcp = find(results, NfsTransport.TCP);
        NfsBenchReport.line(out, "WRITE", rdma == null ? null : rdma.write(), tcp == null ? null : tcp.write());
        NfsBenchReport.line(out, "READ", rdma == null ? null : rdma.read(), tcp == null ? null : tcp.read());
        List<String> problems = results.stream().flatMap(r -> r.problems().stream()).toList();
        List<String> notes = new ArrayList<>();
        notes.add("warm-up: " + settings.warmupPasses() + " pass" + (settings.warmupPasses() == 1 ? "" : "es")
                + " per transport, then " + warmedUp.describe(settings.steadyShare(), settings.steadyCapSeconds()));
        for (NfsBenchRun.Result r : results) {
            if (r.rsize() != settings.rsize() || r.wsize() != settings.wsize()) {
                notes.add(r.transport() + ": the server allowed rsize " + r.rsize() + ", wsize " + r.wsize());
            }
        }
        if (serverMeters != null) {
            notes.add(String.format("RDMA data path (server RNIC): %d RDMA Read Requests (WRITE data pulled from Read "
                    + "chunks), %d RDMA Writes (READ data pushed into Write chunks)",
                    sent(serverMeters, "rdma_read_request"), sent(serverMeters, "rdma_write")));
            String depth = pipelineDepth(serverMeters);
            if (depth != null) {
                notes.add(depth);
            }
        }
        if (noTcp) {
            notes.add("TCP skipped (--no-tcp)");
        }
        NfsBenchReport.footer(out, problems, serverDirectory != null, notes);
        if (clientMeters != null) {
            MeterPrinter.print(out, "client RNIC", clientMeters);
        }
        return problems.isEmpty() ? 0 : NfsFailures.EXIT_FAILED;
    }

    /**
     * The server's FSSTAT (RFC 1813 §3.3.18) for the export: refuse to start when the space available
     * to this caller cannot hold every transport's file. A server that does not answer is not refused.
     */
    private void checkServerSpace(NfsBenchSettings settings, NfsSession session, NfsLocation target)
            throws InterruptedException {
        long needed = settings.fileSize() * settings.transports().size();
        if (session.client4() != null) {
            long available;
            try {
                available = session.client4().spaceAvailable(session.path());
            } catch (RuntimeException e) {
                return;
            }
            if (available >= 0 && available < needed) {
                throw noRoom(settings, session, target, needed, available);
            }
            return;
        }
        org.iwarp4j.nfs.v3.Fsstat3Res fs;
        try {
            fs = session.client().fsstat(session.client().root()).get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return;
        }
        if (fs.status() == org.iwarp4j.nfs.v3.Nfs3Status.NFS3_OK && fs.abytes() < needed) {
            throw noRoom(settings, session, target, needed, fs.abytes());
        }
    }

    private ParameterException noRoom(NfsBenchSettings settings, NfsSession session, NfsLocation target, long needed,
                                      long available) {
        return new ParameterException(spec.commandLine(), "--file-size " + NfsBenchReport.octets(settings.fileSize())
                + ": needs " + NfsBenchReport.octets(needed) + " free on " + target.host() + ":" + target.path()
                + " (one file per transport), the server says " + NfsBenchReport.octets(available) + " free");
    }

    private static NfsBenchRun.Result find(List<NfsBenchRun.Result> results, NfsTransport transport) {
        return results.stream().filter(r -> r.transport() == transport).findFirst().orElse(null);
    }

    /**
     * Keeps a median for the server's depth distributions (what {@link #pipelineDepth} prints);
     * set before any meter is registered, since Micrometer configures a meter when it is made.
     */
    private static void keepMedians(SimpleMeterRegistry meters) {
        meters.config().meterFilter(new io.micrometer.core.instrument.config.MeterFilter() {
            @Override
            public io.micrometer.core.instrument.distribution.DistributionStatisticConfig configure(
                    io.micrometer.core.instrument.Meter.Id id,
                    io.micrometer.core.instrument.distribution.DistributionStatisticConfig config) {
                if (DEPTH_METERS.contains(id.getName())) {
                    return io.micrometer.core.instrument.distribution.DistributionStatisticConfig.builder()
                            .percentiles(0.5).expiry(java.time.Duration.ofHours(1)).bufferLength(1).build()
                            .merge(config);
                }
                return config;
            }
        });
    }

    private static final java.util.Set<String> DEPTH_METERS = java.util.Set.of("iwarp.rpcrdma.credits.in.use",
            "iwarp.rdmap.reads.outstanding", "iwarp.oncrpc.calls.in.progress");

    /**
     * The server's pipeline depth over the whole run (warm-up included): credits granted and in use
     * when a Call arrives, RDMA Reads outstanding per queue pair when one is sent, calls in progress
     * at the RPC dispatcher per transport; max, median and mean of each. {@code null} if none was recorded.
     */
    static String pipelineDepth(io.micrometer.core.instrument.MeterRegistry meters) {
        List<String> parts = new ArrayList<>();
        io.micrometer.core.instrument.DistributionSummary granted =
                meters.find("iwarp.rpcrdma.credits.granted").summary();
        if (granted != null && granted.count() > 0) {
            parts.add(String.format("RDMA credits granted %.0f", granted.max()));
        }
        depth(parts, "in use", meters.find("iwarp.rpcrdma.credits.in.use").summary());
        depth(parts, "RDMA Reads outstanding per QP", meters.find("iwarp.rdmap.reads.outstanding").summary());
        for (String transport : List.of("rdma", "tcp")) {
            depth(parts, "calls in progress " + transport,
                    meters.find("iwarp.oncrpc.calls.in.progress").tag("transport", transport).summary());
        }
        return parts.isEmpty() ? null : "server depth (max/median/mean): " + String.join(", ", parts);
    }

    private static void depth(List<String> parts, String what, io.micrometer.core.instrument.DistributionSummary s) {
        if (s == null || s.count() == 0) {
            return;
        }
        double median = Double.NaN;
        for (io.micrometer.core.instrument.distribution.ValueAtPercentile p : s.takeSnapshot().percentileValues()) {
            if (p.percentile() == 0.5) {
                median = p.value();
            }
        }
        parts.add(String.format("%s %.0f/%.0f/%.1f", what, s.max(), median, s.mean()));
    }

    private static long sent(SimpleMeterRegistry meters, String opcode) {
        Counter c = meters.find("iwarp.rdmap.messages").tag("direction", "tx").tag("opcode", opcode).counter();
        return c == null ? 0 : (long) c.count();
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is no failure of the benchmark
        }
    }
}
