package org.iwarp4j.tools.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.Test;

/**
 * Network failures in words, with the address and port, never an exception's internal text: a name
 * that does not resolve, a port in use, and a peer's MPA reject read against what our Request asked.
 */
class ConnectErrorsTest {

    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.2.15", 18515);

    @Test
    void anUnresolvedNameIsNoSuchHost() {
        assertThat(ConnectErrors.cannotConnect(InetSocketAddress.createUnresolved("foo", 18515), null))
                .isEqualTo("no such host: foo");
        assertThat(ConnectErrors.reason(new java.net.UnknownHostException("foo: Name or service not known")))
                .isEqualTo("no such host: foo");
    }

    @Test
    void aPortInUseIsSaidSoWithItsAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
             Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
            Throwable failure = null;
            try {
                rnic.listen(address, MpaSettings.builder().build(), request -> request.reject(new byte[0])).close();
            } catch (Exception e) { // Netty rethrows the bind failure unchecked or as a native IOException
                failure = e;
            }
            assertThat(failure).as("binding a port in use").isNotNull();
            assertThat(ConnectErrors.cannotListen(address, failure))
                    .isEqualTo("127.0.0.1:" + taken.getLocalPort() + " is already in use");
        }
        assertThat(ConnectErrors.cannotListen(new InetSocketAddress("127.0.0.1", 18515),
                new BindException("Address already in use"))).isEqualTo("127.0.0.1:18515 is already in use");
    }

    @Test
    void aPeerThatRefusesOurMarkersIsToldApartFromOtherRejects() {
        MpaSettings markers = MpaSettings.builder().markers(NegotiationMode.REQUIRE).build();
        // siw's answer to M=1: R=1, M=0 (RFC 5044 §7.1.2: a Responder that cannot use markers rejects)
        MpaRejectedException noMarkers = new MpaRejectedException(true,
                MpaStartupFrame.reply(false, true, true, 2, null, new byte[0]), null);
        assertThat(ConnectErrors.rejected(PEER, noMarkers, markers)).isEqualTo("cannot connect to 10.0.2.15:18515:"
                + " the peer rejected the connection: it does not accept MPA markers (try without --markers)");

        MpaSettings crcOn = MpaSettings.builder().crc(NegotiationMode.REQUIRE).build();
        assertThat(ConnectErrors.rejectedReason(new MpaRejectedException(true,
                MpaStartupFrame.reply(false, false, true, 2, null, new byte[0]), null), crcOn))
                .isEqualTo("the peer rejected the connection: it does not accept CRC32c (try --crc=accept)");

        assertThat(ConnectErrors.rejectedReason(new MpaRejectedException(true,
                MpaStartupFrame.reply(false, true, true, 1, null, new byte[0]), null), crcOn))
                .isEqualTo("the peer rejected the connection: it speaks MPA revision 1 (try --mpa-rev 1)");

        // A reject that matches our Request: nothing to blame but the ULP's own reason.
        assertThat(ConnectErrors.rejectedReason(new MpaRejectedException(true,
                MpaStartupFrame.reply(false, true, true, 2, null, "busy".getBytes(StandardCharsets.US_ASCII)), null),
                crcOn)).isEqualTo("the peer rejected the connection: it gave 4 octets of private data as its reason");
    }
}
