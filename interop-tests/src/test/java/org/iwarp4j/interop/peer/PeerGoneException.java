package org.iwarp4j.interop.peer;

/**
 * A peer command failed because the peer itself stopped responding, as a liveness probe
 * confirmed ({@link Liveness}): the message has the evidence (what failed first, the probe's
 * result, QEMU's run state, the guest's last console lines and where its whole console log is).
 * {@link LinuxPeerExtension} reports whatever this ends as <em>quarantined</em> (aborted with
 * the evidence), and the next test class gets a fresh peer.
 */
public final class PeerGoneException extends PeerCommandException {

    private static final long serialVersionUID = 1L;

    private final String evidence;

    /**
     * @param what what this exception interrupted, e.g. "'rpc.nfsd 0' not run"
     * @param evidence what the probe found, kept for every later command on the same peer
     */
    PeerGoneException(String what, String evidence, Throwable cause) {
        super("the peer VM stopped responding (" + what + ")\n" + evidence, cause);
        this.evidence = evidence;
    }

    /** The probe's findings, without what this particular exception interrupted. */
    public String evidence() {
        return evidence;
    }
}
