package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.NegotiationMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code iwarp demo}: an MPA Initiator and Responder in one process over loopback TCP. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        // The first line alone is iwarp --help's summary: a whole sentence.
        description = {"MPA alone: two ends over loopback TCP send ULPDUs both ways, every octet verified.",
                "Prints what was negotiated and what crossed the wire.",
                "Exit status 0 only if every ULPDU arrived intact."})
final class MpaDemoCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-n", "--count"}, description = "ULPDUs to send each way (default: ${DEFAULT-VALUE})")
    int count = 10_000;

    @Option(names = {"-s", "--size"}, converter = Octets.Int.class, paramLabel = "SIZE",
            description = "octets per ULPDU, K allowed; 0 = the negotiated MULPDU (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--mpa-rev", description = "MPA revision to offer: 1 (RFC 5044) or 2 (RFC 6581) (default: ${DEFAULT-VALUE})")
    int revision = MpaConstants.REVISION_2;

    @Option(names = "--markers", description = "both ends require markers (RFC 5044 §4.3)")
    boolean markers;

    @Option(names = "--crc", paramLabel = "on|accept|off", arity = "0..1", fallbackValue = "on",
            converter = BenchCommand.CrcConverter.class, description = "CRC32c, as every iwarp command takes it: on"
                    + " (both ends ask; the default, and --crc alone), accept or off (both ends ask for none, RFC 5044"
                    + " §4.4 2a)")
    NegotiationMode crc = NegotiationMode.REQUIRE;

    @Option(names = "--no-crc", description = "the same as --crc=accept (kept for old command lines)")
    boolean noCrc;

    @Option(names = "--max-ulpdu", description = "MULPDU for a software-to-software link instead of the EMSS formula's (the connection's MSS, else 1448), 128..64768")
    int maxUlpdu;

    @Option(names = "--private-data", description = "the Initiator's private data (default: ${DEFAULT-VALUE})")
    String privateData = "hello from the iwarp4j Initiator";

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (count < 1) {
            throw UsageErrors.invalid(spec.commandLine(), "--count", count, "must be at least 1");
        }
        if (size < 0 || size > MpaConstants.MAX_ULPDU) {
            throw UsageErrors.invalid(spec.commandLine(), "--size", size, "must be 0..64768");
        }
        MpaDemo demo = new MpaDemo(revision, markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT,
                noCrc ? NegotiationMode.ACCEPT : crc, maxUlpdu, privateData);
        MpaDemo.Report report = demo.run(count, size);
        report.print(out);
        out.flush();
        return report.verified() ? 0 : 1;
    }
}
