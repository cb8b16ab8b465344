package org.iwarp4j.cli;

import java.io.PrintWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * How every command reports a bad command line: one line naming the option, the value and the rule
 * ({@code iwarp bench write: --size 0: must be at least 1}), one line saying where the help is
 * ({@code see iwarp bench write --help}), and exit status 2. No usage dump: the error would scroll
 * out of sight above it.
 */
public final class UsageErrors implements CommandLine.IParameterExceptionHandler {

    /** picocli's wording for a value its converter refused: the option, maybe its label, the reason. */
    private static final Pattern INVALID_VALUE =
            Pattern.compile("^Invalid value for (?:option|positional parameter at index \\S+) '([^']+)'(?: \\([^)]*\\))?: (.*)$",
                    Pattern.DOTALL);
    /** picocli's reason for a number it could not read. */
    private static final Pattern NOT_A_NUMBER = Pattern.compile("^'(.*)' is not an? (int|long|double|float)$");

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName(" ");
        PrintWriter err = cmd.getErr();
        err.println(name + ": " + describe(ex));
        err.println("see " + name + " --help");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The error line after the command's name. */
    static String describe(ParameterException ex) {
        String message = ex.getMessage() == null ? "" : ex.getMessage().strip();
        Matcher m = INVALID_VALUE.matcher(message);
        if (m.matches()) {
            String option = longName(ex.getArgSpec(), m.group(1));
            String reason = m.group(2).strip();
            Matcher number = NOT_A_NUMBER.matcher(reason);
            if (number.matches()) {
                return option + " " + number.group(1) + ": not a number"
                        + (number.group(2).equals("int") || number.group(2).equals("long") ? " (a whole number)" : "");
            }
            String value = ex.getValue();
            return value == null ? option + ": " + reason : option + " " + value + ": " + reason;
        }
        // picocli's own ("Unknown option: '--bogus'", "Missing required ...") read well as they are.
        return message.lines().findFirst().orElse(message);
    }

    /** {@code --size} rather than {@code -s}: the name that says what the option is. */
    private static String longName(ArgSpec arg, String given) {
        if (arg instanceof OptionSpec option) {
            return option.longestName();
        }
        return given;
    }

    /** Usage errors of the command's own checks: {@code OPTION VALUE: RULE}. */
    public static ParameterException invalid(CommandLine cmd, String option, Object value, String rule) {
        return new ParameterException(cmd, option + " " + value + ": " + rule);
    }
}
