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
 *
 * <p>A failure that can mean the peer itself is gone (the command outlived its timeout, or ended
 * with exit {@value #TRANSPORT_FAILED}, ssh's own failure) asks the peer's {@link Liveness}; when
 * the probe confirms it, the failure is a {@link PeerGoneException} with the evidence. On a peer
 * already known gone nothing is launched or signalled any more: that fails or ends at once.
 */
public final class BackgroundCommand implements AutoCloseable {

    private static final Duration KILL_GRACE = Duration.ofSeconds(15);
    /** ssh's exit code when ssh itself fails (also what a command killed under ssh reports). */
    static final int TRANSPORT_FAILED = 255;

    private final String command;
    private final PeerShell shell;
    private final Liveness liveness;
    private final Process process;
    private final CommandOutput output;

    private BackgroundCommand(String command, PeerShell shell, Liveness liveness, Process process) {
        this.command = command;
        this.shell = shell;
        this.liveness = liveness;
        this.process = process;
        this.output = new CommandOutput(process.getInputStream(), process.getErrorStream(), "peer-command");
    }

    /** Starts {@code command} on a peer that cannot stop responding (this host). */
    static BackgroundCommand start(PeerShell shell, String command) {
        return start(shell, Liveness.ASSUMED, command);
    }

    /**
     * Starts {@code command}; the wrapper first reports the process group to kill it by.
     *
     * @throws PeerGoneException at once, launching nothing, if the peer is known to be gone
     */
    static BackgroundCommand start(PeerShell shell, Liveness liveness, String command) {
        Optional<String> gone = liveness.gone();
        if (gone.isPresent()) {
            throw new PeerGoneException("'" + command + "' not run", gone.get(), null);
        }
        try {
            Process process = shell.launch("echo \"" + CommandOutput.PID_MARKER + "$$\" >&2\n" + command);
            return new BackgroundCommand(command, shell, liveness, process);
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
            if (line.isPresent()) {
                return line.get();
            }
            // The output closes before the process is reaped, so isAlive() alone can still
            // say true here for a command that has ended (seen once in CI).
            boolean ended = output.outputClosed() || !process.isAlive();
            PeerCommandException failure = new PeerCommandException("no line matching /" + regex + "/ "
                    + (ended ? "before the command ended" : "within " + timeout) + ": " + snapshot());
            // A command that ended by itself (any exit code but ssh's own failure) says the peer runs.
            boolean endedByItself = ended && process.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)
                    && process.exitValue() != TRANSPORT_FAILED;
            throw endedByItself ? failure : unlessPeerGone(failure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PeerCommandException("interrupted waiting for /" + regex + "/ from '" + command + "'", e);
        }
    }

    /**
     * Waits for the command to end and returns how it ended.
     *
     * @throws PeerCommandException if it is still running after {@code timeout} (it keeps running)
     * @throws PeerGoneException if it outlived its timeout or ssh failed (exit {@value #TRANSPORT_FAILED}),
     *     and the peer then did not answer a probe
     */
    public ExecResult waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw unlessPeerGone(new PeerCommandException("still running after " + timeout + ": " + snapshot()));
            }
            output.awaitEnd(KILL_GRACE);
            ExecResult result = result();
            if (result.exitCode() == TRANSPORT_FAILED) {
                Optional<String> gone = liveness.probe(result.toString());
                if (gone.isPresent()) {
                    throw new PeerGoneException("'" + command + "' exit " + TRANSPORT_FAILED, gone.get(),
                            new PeerCommandException(result.toString()));
                }
            }
            return result;
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
            if (process.isAlive() && liveness.gone().isPresent()) {
                // Nothing on the peer can be signalled; end our side (the ssh client) and move on.
                process.destroyForcibly().waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
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

    /** {@code failure}, or the {@link PeerGoneException} it becomes if the peer does not answer a probe. */
    private PeerCommandException unlessPeerGone(PeerCommandException failure) {
        Optional<String> gone = liveness.probe(failure.getMessage());
        return gone.isPresent() ? new PeerGoneException("'" + command + "'", gone.get(), failure) : failure;
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
