package org.iwarp4j.interop.peer;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands in the VM as root over ssh, all multiplexed over one master connection
 * (ControlMaster), so a command costs a channel, not a key exchange under TCG.
 * sshd runs a session's command as a session leader, which {@link PeerShell} relies on.
 */
final class SshShell implements PeerShell, AutoCloseable {

    private static final String TARGET = "root@127.0.0.1";
    private static final File DEV_NULL = new File("/dev/null");

    private final Path key;
    private final int port;
    private final Path controlSocket;

    SshShell(Path key, int port, Path controlSocket) {
        this.key = key;
        this.port = port;
        this.controlSocket = controlSocket;
    }

    /** Opens the master connection; commands work without it, only slower. */
    void openMaster(Duration timeout) throws IOException, InterruptedException {
        List<String> command = sshCommand("-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-f", "-N");
        command.add(TARGET);
        // -f: the master goes to the background after authenticating; it must not hold our pipes.
        Process ssh = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(DEV_NULL))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.PIPE)
                .start();
        if (!ssh.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            ssh.destroyForcibly();
            throw new IOException("ssh master connection not up after " + timeout);
        }
        if (ssh.exitValue() != 0) {
            throw new IOException("ssh master connection failed (exit " + ssh.exitValue() + "): "
                    + new String(ssh.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Override
    public Process launch(String shellCommand) throws IOException {
        return launch(sshCommand("-o", "ControlMaster=no"), shellCommand);
    }

    /**
     * A shell whose every command opens an ssh connection of its own, ignoring the master, with
     * {@code connectTimeout} for the TCP connection and the banner exchange: for probing whether
     * the guest answers at all when commands over the master connection stop coming back.
     */
    PeerShell freshConnections(Duration connectTimeout) {
        // ssh takes the first value given for an option, so these win over sshCommand's.
        return shellCommand -> launch(sshCommand("-o", "ControlPath=none", "-o", "ControlMaster=no",
                "-o", "ConnectTimeout=" + Math.max(1, connectTimeout.toSeconds())), shellCommand);
    }

    private static Process launch(List<String> command, String shellCommand) throws IOException {
        command.add(TARGET);
        command.add(shellCommand);
        return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(DEV_NULL)).start();
    }

    /** Stops the master connection (the VM going away would end it too). */
    @Override
    public void close() throws IOException, InterruptedException {
        List<String> command = sshCommand("-O", "exit");
        command.add(TARGET);
        Process ssh = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(DEV_NULL))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!ssh.waitFor(10, TimeUnit.SECONDS)) {
            ssh.destroyForcibly();
        }
    }

    private List<String> sshCommand(String... extra) {
        List<String> command = new ArrayList<>(List.of("ssh"));
        command.addAll(List.of(extra));
        command.addAll(List.of("-F", "/dev/null", "-i", key.toString(), "-p", Integer.toString(port),
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=60",
                "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=8",
                "-o", "ControlPath=" + controlSocket));
        return command;
    }
}
