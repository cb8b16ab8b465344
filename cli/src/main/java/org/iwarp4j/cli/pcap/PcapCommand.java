package org.iwarp4j.cli.pcap;

import org.iwarp4j.tools.pcap.CommandCapture;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp pcap FILE [--] COMMAND...}: runs another iwarp command with every TCP connection it
 * makes recorded into one pcap file for Wireshark or tshark (the same as {@code iwarp --pcap FILE
 * COMMAND...}). The command line that runs the inner command is given by whoever registers this
 * command, so that it is parsed exactly as at the top.
 */
@Command(name = "pcap", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = {"Runs an iwarp command and records every TCP connection it makes (RDMA connections from their"
                + " MPA Request on, bench's plain-TCP comparison too) into one pcap file.",
                "Same as: iwarp --pcap FILE COMMAND...",
                "Read it with: tshark -r FILE --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE [-V],",
                "or open it in Wireshark."},
        footer = {"", "Example: iwarp pcap rping.pcap -- rping -c -a 127.0.0.1 -C 3 --crc",
                "Exit status: the command's; 2 FILE cannot be written; 1 the command succeeded but FILE is incomplete."})
public final class PcapCommand implements Callable<Integer> {

    /** Runs an iwarp command line (the top command's parser and exit codes) with the given output. */
    public interface Runner {
        int run(PrintWriter out, PrintWriter err, String... args);
    }

    private final Runner runner;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the pcap file to write (replaced if it exists)")
    Path file;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND",
            description = "the iwarp command to run, with its arguments (after --, or after FILE)")
    List<String> command = new ArrayList<>();

    public PcapCommand(Runner runner) {
        this.runner = runner;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> args = new ArrayList<>(command);
        if (!args.isEmpty() && args.get(0).equals("--")) {
            args.remove(0); // picocli keeps "--" when it stopped at FILE
        }
        if (args.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "no command to record: iwarp pcap FILE -- COMMAND");
        }
        IntSupplier inner = () -> runner.run(out, err, args.toArray(String[]::new));
        return CommandCapture.run(file, err, inner);
    }
}
