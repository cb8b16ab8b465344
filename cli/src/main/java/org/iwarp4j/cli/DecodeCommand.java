package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import org.iwarp4j.conformance.decode.CaptureDecoder;
import org.iwarp4j.conformance.decode.DecodeOptions;
import org.iwarp4j.conformance.decode.DecodeReport;
import org.iwarp4j.conformance.decode.ReportWriter;
import org.iwarp4j.conformance.decode.UnreadableCaptureException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp decode FILE}: decodes a capture's iWARP connections and checks them against the RFC
 * rules (module {@code conformance}, {@link CaptureDecoder}). Only the command line lives here.
 */
@Command(name = "decode", usageHelpAutoWidth = true,
        description = {"Decodes the iWARP connections of a pcap/pcapng capture and checks them against the RFC rules.",
                "MPA (RFC 5044/6581), DDP (RFC 5041), RDMAP (RFC 5040), RPC-over-RDMA (RFC 8166/8797) with ONC RPC and"
                        + " NFS names (RFC 8267); every violation is printed with its requirement ID"
                        + " (docs/requirements/) and frame."},
        footer = {"", "Example: iwarp decode nfs.pcap -V --connection 1",
                "Exit status: 0 no violation (warnings allowed), 1 violations, 2 unreadable input, a capture the decoder"
                        + " could not finish (too large for memory, a decoder failure) or usage error."})
final class DecodeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    // -V is --verbose here, as in tshark and tcpdump; the version is --version only.
    @Option(names = "--version", versionHelp = true, description = "print the version and exit")
    boolean version;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "the capture (pcap or pcapng)")
    Path file;

    @Option(names = {"-V", "--verbose"}, description = "print every decoded field under each line")
    boolean verbose;

    @Option(names = "--json", description = "print the report as JSON")
    boolean json;

    @Option(names = "--connection", paramLabel = "N",
            description = "decode only TCP connection N (tshark's tcp.stream)")
    Integer connection;

    @Option(names = "--port", paramLabel = "PORT", split = ",",
            description = "also decode connections on these ports that have no MPA startup frames (captures that"
                    + " start mid-stream)")
    List<Integer> ports = List.of();

    @Option(names = "--rules", description = "list the rules checked, with their requirement IDs, and exit")
    boolean rules;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (rules) {
            ReportWriter.rules(out);
            return 0;
        }
        if (file == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "no capture file given (iwarp decode FILE)");
        }
        if (connection != null && connection < 0) {
            throw UsageErrors.invalid(spec.commandLine(), "--connection", connection, "must be 0 or more");
        }
        DecodeReport report;
        try {
            report = CaptureDecoder.decode(file, new DecodeOptions(new HashSet<>(ports),
                    connection == null ? -1 : connection));
        } catch (UnreadableCaptureException e) {
            return couldNot(err, e.getMessage());
        } catch (Error | RuntimeException e) {
            return failed(err, e, false);
        }
        // A report of millions of units is written as it goes; the JVM may still give out meanwhile.
        try {
            if (json) {
                ReportWriter.json(report, out);
            } else {
                ReportWriter.text(report, out, verbose);
            }
        } catch (Error | RuntimeException e) {
            return failed(err, e, true);
        }
        // A PrintWriter keeps an IOException to itself (a closed pipe, a full disk): a report cut
        // short must not end with the status of a complete one.
        if (out.checkError()) {
            return couldNot(err, file + ": the report could not be written in full (its output failed: a closed"
                    + " pipe or a full disk?)");
        }
        return report.exitStatus();
    }

    /**
     * Status 2 and one line for a capture the decoder could not finish: status 1 would read as
     * "violations found", and a stack trace says nothing a user can act on. A StackOverflowError,
     * an AssertionError or another Error is, like an exception, a defect of the decoder.
     */
    private int failed(PrintWriter err, Throwable e, boolean printing) {
        if (e instanceof OutOfMemoryError) {
            return couldNot(err, file + ": not enough memory to " + (printing ? "print its report" : "decode it")
                    + "; give Java more (IWARP_JAVA_OPTS=-Xmx8g) or split the capture (editcap -c 1000000 " + file
                    + " part.pcap)");
        }
        return couldNot(err, file + ": " + (printing ? "printing the report" : "the decoder") + " failed (" + e
                + "); please report this with the capture");
    }

    /** One line on stderr and exit status 2: the capture could not be decoded (no stack trace). */
    private static int couldNot(PrintWriter err, String why) {
        err.println("iwarp decode: " + why);
        err.flush();
        return 2;
    }
}
