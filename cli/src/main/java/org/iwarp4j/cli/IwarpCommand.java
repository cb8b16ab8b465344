package org.iwarp4j.cli;

import java.nio.file.Path;
import org.iwarp4j.tools.pcap.CommandCapture;
import org.iwarp4j.cli.pcap.PcapCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code iwarp} command: iwarp4j's demos and tools. Not runnable itself: without a command it
 * is a usage error (exit 2), as {@code iwarp bench} and {@code iwarp nfs} are.
 */
@Command(name = "iwarp", mixinStandardHelpOptions = true, version = IwarpCommand.VERSION,
        description = "A pure-Java iWARP stack (MPA, DDP, RDMAP over TCP): demos and tools.",
        subcommands = {MpaDemoCommand.class, BenchCommand.class, org.iwarp4j.cli.rping.RpingCommand.class,
                org.iwarp4j.cli.nfs.NfsCommand.class, DecodeCommand.class, ProbeCommand.class, CommandLine.HelpCommand.class})
public final class IwarpCommand {

    static final String VERSION = "iwarp4j 0.1.0-SNAPSHOT";

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

    /**
     * The command line: {@code pcap} runs a command line of its own; {@code --pcap} wraps the
     * subcommand. Every subcommand with picocli's standard options prints this version for
     * {@code --version} and {@code -V} (picocli leaves theirs empty); {@code decode} has
     * {@code --version} only ({@code -V} is {@code --verbose}) and {@code rping} neither ({@code -V}
     * validates the data, as Linux rping's does). Enum values are taken in any case
     * ({@code --transport epoll}).
     */
    private static CommandLine commandLine() {
        IwarpCommand top = new IwarpCommand();
        CommandLine line = new CommandLine(top);
        line.addSubcommand("pcap", new CommandLine(new PcapCommand(IwarpCommand::run)).setStopAtPositional(true));
        line.setCaseInsensitiveEnumValuesAllowed(true); // after the last addSubcommand: applies to those present
        line.setParameterExceptionHandler(new UsageErrors());
        shareVersion(line);
        line.setExecutionStrategy(parsed -> top.pcap == null ? new CommandLine.RunLast().execute(parsed)
                : CommandCapture.run(top.pcap, line.getErr(), () -> new CommandLine.RunLast().execute(parsed)));
        return line;
    }

    private static void shareVersion(CommandLine line) {
        for (CommandLine sub : line.getSubcommands().values()) {
            if (sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().version(VERSION);
            }
            shareVersion(sub);
        }
    }
}
