package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every combination of revision x markers x CRC x private data negotiates over real loopback TCP,
 * and ULPDUs of 1, MULPDU and 64768 octets flow both ways intact (64768 is above the MULPDU: a
 * segment is never sent back to be cut again, DDP-R-002; MPA-R-003, MPA-R-007, MPA-R-009,
 * MPA-R-046, MPA-R-047; MPA2-R-001, MPA2-R-003, MPA2-R-014). The Responder sends right after
 * accept; its FPDUs wait for the Initiator's first one (MPA-R-061).
 */
class LoopbackNegotiationTest {

    private static EventLoopGroup group;

    @BeforeAll
    static void startEventLoops() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopEventLoops() {
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    static Stream<Arguments> combinations() {
        List<Arguments> all = new ArrayList<>();
        NegotiationMode[] markerModes = {NegotiationMode.ACCEPT, NegotiationMode.REQUIRE};
        NegotiationMode[] crcModes = {NegotiationMode.ACCEPT, NegotiationMode.REQUIRE};
        for (int revision : new int[] {1, 2}) {
            for (NegotiationMode im : markerModes) {
                for (NegotiationMode rm : markerModes) {
                    for (NegotiationMode ic : crcModes) {
                        for (NegotiationMode rc : crcModes) {
                            for (int pd : new int[] {0, 100}) {
                                all.add(Arguments.of(revision, im, rm, ic, rc, pd));
                            }
                        }
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "rev {0} markers I={1} R={2} crc I={3} R={4} pd {5}")
    @MethodSource("combinations")
    void negotiatesAndCarriesUlpdusBothWays(int revision, NegotiationMode initiatorMarkers,
                                            NegotiationMode responderMarkers, NegotiationMode initiatorCrc,
                                            NegotiationMode responderCrc, int privateDataLength) throws Exception {
        Random random = new Random(revision * 1000L + privateDataLength);
        byte[] initiatorPd = randomBytes(random, privateDataLength);
        byte[] responderPd = randomBytes(random, privateDataLength / 2);
        MpaSettings initiatorSettings = MpaSettings.builder().revision(revision).markers(initiatorMarkers)
                .crc(initiatorCrc).privateData(initiatorPd).build();
        MpaSettings responderSettings = MpaSettings.builder().revision(revision).markers(responderMarkers)
                .crc(responderCrc).privateData(responderPd).build();

        try (LoopbackMpa pair = LoopbackMpa.connect(group, initiatorSettings, responderSettings,
                ConnectRequestHandler.ACCEPT_ALL)) {
            NegotiatedParameters i = pair.initiator.awaitStartup();
            NegotiatedParameters r = pair.responder.awaitStartup();

            boolean crc = initiatorCrc == NegotiationMode.REQUIRE || responderCrc == NegotiationMode.REQUIRE;
            assertThat(i.crc()).isEqualTo(crc);
            assertThat(r.crc()).isEqualTo(crc);
            assertThat(i.markersToPeer()).isEqualTo(responderMarkers == NegotiationMode.REQUIRE);
            assertThat(r.markersFromPeer()).isEqualTo(i.markersToPeer());
            assertThat(r.markersToPeer()).isEqualTo(initiatorMarkers == NegotiationMode.REQUIRE);
            assertThat(i.markersFromPeer()).isEqualTo(r.markersToPeer());
            assertThat(i.revision()).isEqualTo(revision);
            assertThat(r.revision()).isEqualTo(revision);
            assertThat(i.peerPrivateData()).isEqualTo(responderPd);
            assertThat(r.peerPrivateData()).isEqualTo(initiatorPd);
            if (revision == 2) {
                assertThat(i.peerEnhancedData()).isNotNull();
                assertThat(r.peerEnhancedData().ird()).isEqualTo(MpaSettings.DEFAULT_IRD_ORD);
            } else {
                assertThat(i.peerEnhancedData()).isNull();
            }

            // The Responder speaks first in its ULP; MPA holds it until the Initiator's FPDU arrives.
            List<byte[]> fromResponder = ulpdus(random, r.sendMulpdu());
            for (byte[] u : fromResponder) {
                pair.responder.send(u);
            }
            List<byte[]> fromInitiator = ulpdus(random, i.sendMulpdu());
            for (byte[] u : fromInitiator) {
                pair.initiator.send(u);
            }
            for (byte[] u : fromInitiator) {
                assertThat(pair.responder.take()).isEqualTo(u);
            }
            for (byte[] u : fromResponder) {
                assertThat(pair.initiator.take()).isEqualTo(u);
            }
            assertThat(pair.initiator.error).isNotDone();
            assertThat(pair.responder.error).isNotDone();
        }
    }

    private static List<byte[]> ulpdus(Random random, int mulpdu) {
        return List.of(randomBytes(random, 1), randomBytes(random, mulpdu), randomBytes(random, MpaConstants.MAX_ULPDU));
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
