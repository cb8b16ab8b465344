package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A command running on the {@link LinuxPeer} (a server, a capture): wait for a line of its
 * output, wait for it to end, or kill it with everything it started. Closing kills it if it
 * is still running, so try-with-resources never leaves one behind.
 */
public final class BackgroundCommand implements AutoCloseable {

    private static final Duration KILL_GRACE = Duration.ofSeconds(15);

    private final String command;
    private final PeerShell shell;
    private final Process process;
    private final CommandOutput output;

    private BackgroundCommand(String command, PeerShell shell, Process process) {
        this.command = command;
        this.shell = shell;
        this.process = process;
        this.output = new CommandOutput(process.getInputStream(), process.getErrorStream(), "peer-command");
    }

    /** Starts {@code command}; the wrapper first reports the process group to kill it by. */
    static BackgroundCommand start(PeerShell shell, String command) {
        try {
            Process process = shell.launch("echo \"" + CommandOutput.PID_MARKER + "$$\" >&2\n" + command);
            return new BackgroundCommand(command, shell, process);
        } catch (IOException e) {
            throw new PeerCommandException("cannot run '" + command + "' on the peer", e);
        }
    }

    public String command() {
        return command;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the command writes a line (stdout or stderr, earlier lines included) in which
     * {@code regex} is found, and returns that line.
     *
     * @throws PeerCommandException if the command ends or the time runs out first
     */
    public String awaitLine(String regex, Duration timeout) {
        Pattern pattern = Pattern.compile(regex);
        try {
            Optional<String> line = output.awaitLine(l -> pattern.matcher(l).find(), timeout);
            return line.orElseThrow(() -> new PeerCommandException("no line matching /" + regex + "/ "
                    // The output closes before the process is reaped, so isAlive() alone can still
                    // say true here for a command that has ended (seen once in CI).
                    + (output.outputClosed() || !process.isAlive() ? "before the command ended" : "within " + timeout)
                    + ": " + snapshot()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerCommandException("interrupted waiting for /" + regex + "/ from '" + command + "'", e);
        }
    }

    /**
     * Waits for the command to end and returns how it ended.
     *
     * @throws PeerCommandException if it is still running after {@code timeout} (it keeps running)
     */
    public ExecResult waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new PeerCommandException("still running after " + timeout + ": " + snapshot());
            }
            output.awaitEnd(KILL_GRACE);
            return result();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerCommandException("interrupted waiting for '" + command + "'", e);
        }
    }

    /**
     * Stops the command and everything it started (SIGTERM to its process group, SIGKILL if it
     * lingers) and returns what it wrote. The exit code is then whatever the transport reports
     * for a killed command (ssh: 255).
     */
    public ExecResult kill() {
        try {
            if (process.isAlive()) {
                Optional<Long> pid = output.pid(KILL_GRACE);
                if (pid.isPresent()) {
                    signal(pid.get(), "TERM");
                    if (!process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                        signal(pid.get(), "KILL");
                    }
                }
                if (!process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            output.awaitEnd(KILL_GRACE);
            return result();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new PeerCommandException("interrupted killing '" + command + "'", e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    private void signal(long processGroup, String signal) throws InterruptedException {
        try {
            Process kill = shell.launch("kill -" + signal + " -- -" + processGroup + " 2>/dev/null; exit 0");
            kill.getInputStream().close();
            kill.getErrorStream().close();
            if (!kill.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            throw new PeerCommandException("cannot signal '" + command + "' on the peer", e);
        }
    }

    private ExecResult result() {
        return new ExecResult(command, process.exitValue(), output.stdout(), output.stderr());
    }

    private String snapshot() {
        return "'" + command + "'\n--- stdout so far ---\n" + output.stdout() + "--- stderr so far ---\n" + output.stderr();
    }

    @Override
    public String toString() {
        return "BackgroundCommand[" + command + (process.isAlive() ? ", running]" : ", ended]");
    }
}
