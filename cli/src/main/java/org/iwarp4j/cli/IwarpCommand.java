package org.iwarp4j.cli;

import java.nio.file.Path;
import org.iwarp4j.cli.pcap.CommandCapture;
import org.iwarp4j.cli.pcap.PcapCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code iwarp} command: iwarp4j's demos and tools. */
@Command(name = "iwarp", mixinStandardHelpOptions = true, version = "iwarp4j 0.1.0-SNAPSHOT",
        description = "A pure-Java iWARP stack (MPA, DDP, RDMAP over TCP): demos and tools.",
        subcommands = {MpaDemoCommand.class, BenchCommand.class, org.iwarp4j.cli.rping.RpingCommand.class,
                org.iwarp4j.cli.nfs.NfsCommand.class, CommandLine.HelpCommand.class})
public final class IwarpCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--pcap", paramLabel = "FILE", description = "record every TCP connection of the"
            + " command into this pcap file (as iwarp pcap FILE -- COMMAND)")
    private Path pcap;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (for tests: no System.exit). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** As {@link #run(String...)}, printing to {@code out} and {@code err}. */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        return commandLine().setOut(out).setErr(err).execute(args);
    }

    /** The command line: {@code pcap} runs a command line of its own; {@code --pcap} wraps the subcommand. */
    private static CommandLine commandLine() {
        IwarpCommand top = new IwarpCommand();
        CommandLine line = new CommandLine(top);
        line.addSubcommand("pcap", new CommandLine(new PcapCommand(IwarpCommand::run)).setStopAtPositional(true));
        line.setExecutionStrategy(parsed -> top.pcap == null ? new CommandLine.RunLast().execute(parsed)
                : CommandCapture.run(top.pcap, line.getErr(), () -> new CommandLine.RunLast().execute(parsed)));
        return line;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
