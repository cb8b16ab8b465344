package org.iwarp4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code iwarp} command: iwarp4j's demos and tools. */
@Command(name = "iwarp", mixinStandardHelpOptions = true, version = "iwarp4j 0.1.0-SNAPSHOT",
        description = "A pure-Java iWARP stack (MPA, DDP, RDMAP over TCP): demos and tools.",
        subcommands = {MpaDemoCommand.class, BenchCommand.class, org.iwarp4j.cli.rping.RpingCommand.class,
                CommandLine.HelpCommand.class})
public final class IwarpCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (for tests: no System.exit). */
    public static int run(String... args) {
        return new CommandLine(new IwarpCommand()).execute(args);
    }

    /** As {@link #run(String...)}, printing to {@code out} and {@code err}. */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        return new CommandLine(new IwarpCommand()).setOut(out).setErr(err).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
