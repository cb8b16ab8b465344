package org.iwarp4j.interop.peer;

import java.time.Duration;
import java.util.Base64;
import java.util.function.Predicate;

/**
 * A capture file tcpdump writes in the guest, read from the host. tcpdump in a guest emulated
 * without KVM writes behind the traffic, so what a test has already seen arrive may not be in the
 * file yet: a test reads the file until it holds what the test looks for, and only then stops
 * tcpdump (stopped at once, it lost the last packets: the NFSv4 TCP back channel's CB_COMPOUND in
 * a `.ci/run` of acada50).
 */
public final class GuestCapture {

    private GuestCapture() {
    }

    /**
     * The file's octets as soon as they satisfy {@code complete} (which must accept a file still
     * being written, with a partial last packet), or as they are when {@code timeout} is over, for
     * the caller's assertions to say what is missing. Each look is a round trip to the guest.
     */
    public static byte[] readOnceItHolds(LinuxPeer peer, String file, Predicate<byte[]> complete, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            byte[] capture = Base64.getDecoder().decode(peer.exec("base64 -w0 " + file).requireSuccess().stdout().strip());
            if (complete.test(capture) || System.nanoTime() - deadline > 0) {
                return capture;
            }
        }
    }
}
