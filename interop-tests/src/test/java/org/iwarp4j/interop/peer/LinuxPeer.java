package org.iwarp4j.interop.peer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A Linux host with a soft-iWARP device (siw) for interop tests: run commands on it, and know
 * the addresses to use in each direction. Get one by declaring a parameter of this type in a
 * test class extended with {@link LinuxPeerExtension}; one peer serves the whole test JVM,
 * so tests kill what they start and leave siw as they found it.
 *
 * <p>Directions:
 * <ul>
 * <li>host -> peer: a server on the peer listens on {@link #peerAddress()}:{@code p}; the
 *     host connects to {@link #forwardedPort(int) forwardedPort(p)}.</li>
 * <li>peer -> host: the host listens on {@link #hostBindAddress()}:{@code q}; a command on the
 *     peer connects to {@link #hostAddressSeenByPeer()}:{@code q}.</li>
 * </ul>
 * Commands run as root through {@code bash -c}. A command that starts a daemon must redirect
 * the daemon's output, or the command never ends.
 */
public interface LinuxPeer {

    Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

    /** What this peer is, for logs and failure messages. */
    String description();

    /**
     * Runs {@code shellCommand} and waits for it to end.
     *
     * @throws PeerCommandException if it is still running after {@code timeout} (it is killed)
     */
    default ExecResult exec(String shellCommand, Duration timeout) {
        try (BackgroundCommand command = start(shellCommand)) {
            return command.waitFor(timeout);
        }
    }

    default ExecResult exec(String shellCommand) {
        return exec(shellCommand, DEFAULT_TIMEOUT);
    }

    /** Starts {@code shellCommand} without waiting for it; close or kill it when done. */
    BackgroundCommand start(String shellCommand);

    /** The name of the siw device, e.g. {@code siw0}. */
    String rdmaDevice();

    /** The IPv4 address of the netdev siw is attached to: servers on the peer listen here. */
    InetAddress peerAddress();

    /** Where commands on the peer reach a host listener bound to {@link #hostBindAddress()}. */
    InetAddress hostAddressSeenByPeer();

    /** Where a host listener must be bound for the peer to reach it. */
    InetAddress hostBindAddress();

    /** Where the host connects to reach {@code peerPort} on {@link #peerAddress()}. */
    InetSocketAddress forwardedPort(int peerPort);

    /**
     * Reloads siw (the device is recreated) with its {@code mpa_crc_required} knob on or off.
     * On, siw as Initiator sets C=1 in its MPA Request and refuses a Reply with C=0. As
     * Responder siw mirrors the Request's C either way, so CRC-required mode is exercised with
     * siw as Initiator.
     * Aborts the calling test (an assumption) where the peer's siw has no such parameter.
     */
    void reloadSiw(boolean crcRequired);

    /**
     * Waits until a TCP listener on {@code peerPort} exists on the peer (siw's listeners are
     * kernel TCP sockets too, so this covers rdma_cm servers).
     *
     * @throws PeerCommandException if none appears within {@code timeout}
     */
    default void awaitListening(int peerPort, Duration timeout) {
        long tenths = Math.max(1, timeout.toMillis() / 100);
        ExecResult result = exec("for i in $(seq " + tenths + "); do "
                + "ss -Hltn 'sport = :" + peerPort + "' | grep -q . && exit 0; sleep 0.1; done; exit 1",
                timeout.plus(DEFAULT_TIMEOUT));
        if (!result.succeeded()) {
            throw new PeerCommandException("nothing listens on port " + peerPort + " of the peer after "
                    + timeout + ": " + exec("ss -ltnp").stdout());
        }
    }
}
