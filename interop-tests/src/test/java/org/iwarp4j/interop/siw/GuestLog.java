package org.iwarp4j.interop.siw;

import java.util.List;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;

/**
 * siw's lines in the peer's kernel log: it reports there what it tells no application, e.g.
 * "siw: got TERMINATE. layer 1, type 1, code 1" (siw_proc_terminate) or "siw: crc error"
 * (siw_get_trailer). Read as a count before a test and the new lines after it.
 */
final class GuestLog {

    private final LinuxPeer peer;
    private final long mark;

    private GuestLog(LinuxPeer peer, long mark) {
        this.peer = peer;
        this.mark = mark;
    }

    /** Marks the current end of siw's kernel log lines. */
    static GuestLog mark(LinuxPeer peer) {
        return new GuestLog(peer, all(peer).size());
    }

    /** siw's kernel log lines since the mark. */
    List<String> siwLinesSince() {
        List<String> lines = all(peer);
        return lines.subList((int) Math.min(mark, lines.size()), lines.size());
    }

    /** The new lines and the peer's view of the connection, for a failure message. */
    String diagnosis() {
        try {
            ExecResult sockets = peer.exec("ss -tni state established");
            return "siw kernel log since the test began: " + siwLinesSince() + "\npeer's TCP connections:\n"
                    + sockets.stdout();
        } catch (RuntimeException e) {
            return "(no diagnosis from the peer: " + e + ")";
        }
    }

    private static List<String> all(LinuxPeer peer) {
        return peer.exec("dmesg | grep -E 'siw[: ]' | grep -v taint || true").requireSuccess().stdout().lines().toList();
    }
}
