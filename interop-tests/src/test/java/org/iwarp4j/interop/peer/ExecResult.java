package org.iwarp4j.interop.peer;

/**
 * How a command run on a {@link LinuxPeer} ended: its exit code and everything it wrote.
 * An exit code of 255 from a VM peer usually means ssh itself failed (see stderr).
 */
public record ExecResult(String command, int exitCode, String stdout, String stderr) {

    public boolean succeeded() {
        return exitCode == 0;
    }

    /** Returns this result if the command exited 0; otherwise throws with its whole output. */
    public ExecResult requireSuccess() {
        if (!succeeded()) {
            throw new PeerCommandException("command failed on the peer: " + this);
        }
        return this;
    }

    @Override
    public String toString() {
        return "'" + command + "' exit " + exitCode
                + "\n--- stdout ---\n" + stdout
                + "--- stderr ---\n" + stderr;
    }
}
