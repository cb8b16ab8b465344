package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.iwarp4j.conformance.probe.Probe;
import org.iwarp4j.conformance.probe.ProbeReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code iwarp probe}: the command-line face of {@link Probe} (module {@code conformance}). */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = {"Probes a remote iWARP listener and reports how it behaves against the RFCs.",
                "One connection at a time, each bounded by --timeout; every observation cites a requirement ID"
                        + " (docs/probe.md lists the probes)."},
        footer = "Exit status: 0 nothing failed, 1 an observation failed, 2 usage error, 3 no connection,"
                + " 4 connections but no MPA Reply on any (nothing judged).")
final class ProbeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "HOST[:PORT]", description = "the listener; PORT defaults to " + Probe.DEFAULT_PORT
            + " (rping's)")
    String target;

    @Option(names = "--json", description = "print the report as JSON (fields in docs/probe.md)")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "limit per connection, 0.001 to 2147483.647 (default: ${DEFAULT-VALUE})")
    double timeout = Probe.DEFAULT_TIMEOUT.toSeconds();

    @Option(names = "--startup-wait", paramLabel = "SECONDS",
            description = "how long to wait, silent, for the peer to drop a connection without a Request,"
                    + " 0.001 to 2147483.647 (default: ${DEFAULT-VALUE})")
    double startupWait = Probe.DEFAULT_STARTUP_WAIT.toSeconds();

    /**
     * SECONDS as a time limit in whole milliseconds: socket limits are an int of milliseconds,
     * and 0 would mean "wait forever", so 1 ms to {@link Integer#MAX_VALUE} ms (NaN refused too).
     */
    private Duration limit(String option, double seconds) {
        double millis = seconds * 1000;
        if (!(millis >= Probe.MIN_LIMIT.toMillis() && millis <= Probe.MAX_LIMIT.toMillis())) {
            throw UsageErrors.invalid(spec.commandLine(), option, seconds, "must be between 0.001 and 2147483.647 seconds");
        }
        return Duration.ofMillis((long) millis);
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        InetSocketAddress address;
        try {
            address = Probe.target(target);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (address.isUnresolved()) {
            err.println("iwarp probe: unknown host " + address.getHostString());
            return 3;
        }
        Duration limit = limit("--timeout", timeout);
        Duration wait = limit("--startup-wait", startupWait);
        ProbeReport report = Probe.builder(address).timeout(limit).startupWait(wait).build().run();
        PrintWriter out = spec.commandLine().getOut();
        String connectFailed = "connection failed: ";
        if (!json && report.exitStatus() == 3) {
            // Nothing was probed: one line, as the other commands say it, instead of a table of inconclusives.
            String why = report.observations().stream().map(o -> o.observed()).filter(o -> o.startsWith(connectFailed))
                    .findFirst().map(o -> o.substring(connectFailed.length())).orElse("no connection");
            err.println("iwarp probe: cannot connect to " + report.target() + ": " + why);
            return report.exitStatus();
        }
        out.print(json ? report.toJson() : report.toTable());
        out.flush();
        if (!json && report.exitStatus() == 4) {
            err.println("iwarp probe: no MPA Reply from " + report.target() + " on any of " + report.connected()
                    + " connections: nothing was judged");
        }
        return report.exitStatus();
    }
}
