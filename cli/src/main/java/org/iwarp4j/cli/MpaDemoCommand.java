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

    @Option(names = {"-s", "--size"}, description = "octets per ULPDU; 0 = the negotiated MULPDU (default: ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--mpa-rev", description = "MPA revision to offer: 1 (RFC 5044) or 2 (RFC 6581) (default: ${DEFAULT-VALUE})")
    int revision = MpaConstants.REVISION_2;

    @Option(names = "--markers", description = "both ends require markers (RFC 5044 §4.3)")
    boolean markers;

    @Option(names = "--no-crc", description = "both ends ask for no CRC (RFC 5044 §4.4 2a); default is CRC on")
    boolean noCrc;

    @Option(names = "--max-ulpdu", description = "MULPDU for a software-to-software link instead of the EMSS formula's (the connection's MSS, else 1448), 128..64768")
    int maxUlpdu;

    @Option(names = "--private-data", description = "the Initiator's private data (default: ${DEFAULT-VALUE})")
    String privateData = "hello from the iwarp4j Initiator";

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (count < 1 || size < 0 || size > MpaConstants.MAX_ULPDU) {
            spec.commandLine().getErr().println("--count must be >= 1 and --size 0..64768");
            return 2;
        }
        MpaDemo demo = new MpaDemo(revision, markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT,
                noCrc ? NegotiationMode.ACCEPT : NegotiationMode.REQUIRE, maxUlpdu, privateData);
        MpaDemo.Report report = demo.run(count, size);
        report.print(out);
        out.flush();
        return report.verified() ? 0 : 1;
    }
}
