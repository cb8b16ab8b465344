package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.iwarp4j.conformance.probe.Probe;
import org.iwarp4j.conformance.probe.ProbeReport;
import org.iwarp4j.conformance.probe.Verdict;
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
        footer = "Exit status: 0 nothing failed, 1 an observation failed, 2 usage error, 3 no connection.")
final class ProbeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "HOST[:PORT]", description = "the listener; PORT defaults to " + Probe.DEFAULT_PORT
            + " (rping's)")
    String target;

    @Option(names = "--json", description = "print the report as JSON (fields in docs/probe.md)")
    boolean json;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "limit per connection (default: ${DEFAULT-VALUE})")
    double timeout = Probe.DEFAULT_TIMEOUT.toSeconds();

    @Option(names = "--startup-wait", paramLabel = "SECONDS",
            description = "how long to wait, silent, for the peer to drop a connection without a Request"
                    + " (default: ${DEFAULT-VALUE})")
    double startupWait = Probe.DEFAULT_STARTUP_WAIT.toSeconds();

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
        if (!(timeout > 0)) {
            throw UsageErrors.invalid(spec.commandLine(), "--timeout", timeout, "must be more than 0 seconds");
        }
        if (!(startupWait > 0)) {
            throw UsageErrors.invalid(spec.commandLine(), "--startup-wait", startupWait, "must be more than 0 seconds");
        }
        ProbeReport report = Probe.builder(address).timeout(Duration.ofMillis((long) (timeout * 1000)))
                .startupWait(Duration.ofMillis((long) (startupWait * 1000))).build().run();
        PrintWriter out = spec.commandLine().getOut();
        if (!json && report.exitStatus() == 3
                && report.observations().stream().allMatch(o -> o.verdict() == Verdict.INCONCLUSIVE)) {
            // Nothing was probed: one line, as the other commands say it, instead of a table of inconclusives.
            err.println("iwarp probe: cannot connect to " + report.target() + ": "
                    + report.observations().get(0).observed().substring("connection failed: ".length()));
            return report.exitStatus();
        }
        out.print(json ? report.toJson() : report.toTable());
        out.flush();
        return report.exitStatus();
    }
}
