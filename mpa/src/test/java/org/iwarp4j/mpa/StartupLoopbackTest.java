package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.mpa.MpaStartupFixtures.TIMEOUT;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertFullOperation;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertInvalidFrame;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertStillStarting;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.elapse;
import static org.iwarp4j.mpa.MpaStartupFixtures.failure;
import static org.iwarp4j.mpa.MpaStartupFixtures.pump;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;
import static org.iwarp4j.mpa.MpaStartupFixtures.ulpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.write;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.Set;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;

/** Two of our handlers connected back to back through their EmbeddedChannels. */
class StartupLoopbackTest {

    @Test
    void mpaR065_twoInitiatorsBothFailWithErrorFour() {
        // MPA-R-065: Initiator/Initiator is detected from the key; both close with code 4.
        MpaStartupHandler a = MpaStartupHandler.initiator(MpaSettings.builder().build());
        MpaStartupHandler b = MpaStartupHandler.initiator(MpaSettings.builder().build());
        EmbeddedChannel ca = channel(a);
        EmbeddedChannel cb = channel(b);
        pump(ca, cb);
        pump(cb, ca);
        assertThat(ca.isOpen()).isFalse();
        assertThat(cb.isOpen()).isFalse();
        assertInvalidFrame(a);
        assertInvalidFrame(b);
        assertThat(ca.finish()).isFalse();
        assertThat(cb.finish()).isFalse();
    }

    @Test
    void mpaR065_twoRespondersBothTimeOut() {
        // MPA-R-065: Responder/Responder: nobody speaks; both time out (SHOULD), at the timeout and not before.
        MpaStartupHandler a = MpaStartupHandler.responder(MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL);
        MpaStartupHandler b = MpaStartupHandler.responder(MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ca = channel(a);
        EmbeddedChannel cb = channel(b);
        pump(ca, cb);
        pump(cb, ca);
        elapse(ca, TIMEOUT.minusMillis(1));
        elapse(cb, TIMEOUT.minusMillis(1));
        assertStillStarting(ca, a);
        assertStillStarting(cb, b);
        elapse(ca, Duration.ofMillis(1));
        elapse(cb, Duration.ofMillis(1));
        assertThat(failure(a)).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(failure(b)).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(ca.isOpen()).isFalse();
        assertThat(cb.isOpen()).isFalse();
        assertThat(ca.finish()).isFalse();
        assertThat(cb.finish()).isFalse();
    }

    @Test
    void clientServerHandshakeAgreesOnBothSidesAndTheResponderWaitsForTheInitiator() {
        // MPA-R-041..R-047, R-057, R-060, R-061, MPA2-R-003, MPA2-R-005, MPA2-R-006 between our two ends.
        MpaSettings initiatorSettings = MpaSettings.builder().ird(4).ord(8).markers(NegotiationMode.REQUIRE).build();
        MpaSettings responderSettings = MpaSettings.builder().ird(6).ord(16).build();
        MpaStartupHandler i = MpaStartupHandler.initiator(initiatorSettings);
        MpaStartupHandler r = MpaStartupHandler.responder(responderSettings, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ci = channel(i);
        EmbeddedChannel cr = channel(r);

        pump(ci, cr);
        NegotiatedParameters rp = success(r);
        ChannelFuture responderFirst = write(cr, ulpdu("V-FPDU-5"));
        pump(cr, ci);
        NegotiatedParameters ip = success(i);
        assertFullOperation(ci);
        assertFullOperation(cr);
        assertThat(responderFirst).as("Responder fenced").isNotDone();

        assertThat(ip.revision()).isEqualTo(2);
        assertThat(rp.revision()).isEqualTo(2);
        assertThat(ip.crc()).isTrue();
        assertThat(rp.crc()).isTrue();
        assertThat(ip.markersFromPeer()).isTrue();
        assertThat(rp.markersToPeer()).isTrue();
        assertThat(ip.markersToPeer()).isFalse();
        assertThat(rp.markersFromPeer()).isFalse();
        // RFC 6581 §9.1: initiator ORD <= responder IRD, responder ORD <= initiator IRD.
        assertThat(ip.ord()).isLessThanOrEqualTo(rp.ird());
        assertThat(rp.ord()).isLessThanOrEqualTo(ip.ird());
        assertThat(rp.ird()).isEqualTo(6);
        assertThat(rp.ord()).isEqualTo(4);
        assertThat(ip.ord()).isEqualTo(6);
        assertThat(ip.ird()).isEqualTo(4);

        ChannelFuture initiatorFirst = write(ci, ulpdu("V-FPDU-1"));
        assertThat(initiatorFirst.isSuccess()).isTrue();
        pump(ci, cr);
        assertThat(Wire.inbound(cr)).containsExactly(ulpdu("V-FPDU-1"));
        assertThat(responderFirst.isSuccess()).isTrue();
        pump(cr, ci);
        assertThat(Wire.inbound(ci)).containsExactly(ulpdu("V-FPDU-5"));
        ci.checkException();
        assertThat(ci.finish()).isFalse();
        assertThat(cr.finish()).isFalse();
    }

    @Test
    void mpa2R009_mpa2R011_peerToPeerRtrIsTheFirstFpduAndOpensTheResponder() {
        // MPA2-R-008, MPA2-R-009, MPA2-R-011: A=1 negotiated; the Initiator's ULP is told which RTR to send
        // (Write preferred), sends it first (V-RTR-1 on the wire, byte for byte); the Responder's
        // ULPDU written at accept time leaves only after the RTR has been validated.
        MpaSettings p2p = MpaSettings.builder().peerToPeer(true).rtrTypes(Set.of(RtrType.WRITE, RtrType.READ)).build();
        MpaStartupHandler i = MpaStartupHandler.initiator(p2p);
        MpaStartupHandler r = MpaStartupHandler.responder(MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL);
        MpaStartupFixtures.Probe responderUlp = new MpaStartupFixtures.Probe(e -> ulpdu("V-FPDU-5"));
        MpaStartupFixtures.Probe initiatorUlp = new MpaStartupFixtures.Probe(
                e -> e.isSuccess() && e.parameters().rtr() == RtrType.WRITE ? ulpdu("V-RTR-1") : null);
        EmbeddedChannel ci = channel(i, initiatorUlp);
        EmbeddedChannel cr = channel(r, responderUlp);

        pump(ci, cr);
        assertThat(success(r).peerToPeer()).isTrue();
        assertThat(responderUlp.writes).hasSize(1);
        assertThat(responderUlp.writes.get(0)).isNotDone();

        // Take the Reply across alone, then look at the Initiator's first FPDU.
        pump(cr, ci);
        NegotiatedParameters ip = success(i);
        assertThat(ip.peerToPeer()).isTrue();
        assertThat(ip.rtr()).isEqualTo(RtrType.WRITE);
        assertThat(initiatorUlp.writes).hasSize(1);
        assertThat(initiatorUlp.writes.get(0).isSuccess()).as("%s", initiatorUlp.writes.get(0).cause()).isTrue();
        byte[] firstFpdu = Wire.outbound(ci);
        assertThat(firstFpdu).isEqualTo(TestVectors.bytes("V-RTR-1"));
        assertThat(Wire.outbound(cr)).as("Responder still fenced").isEmpty();

        cr.writeInbound(Wire.buf(firstFpdu));
        assertThat(Wire.inbound(cr)).containsExactly(ulpdu("V-RTR-1"));
        assertThat(responderUlp.writes.get(0).isSuccess()).isTrue();
        pump(cr, ci);
        assertThat(Wire.inbound(ci)).containsExactly(ulpdu("V-FPDU-5"));
        assertThat(ci.finish()).isFalse();
        assertThat(cr.finish()).isFalse();
    }
}
