package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.mpa.MpaStartupFixtures.C;
import static org.iwarp4j.mpa.MpaStartupFixtures.M;
import static org.iwarp4j.mpa.MpaStartupFixtures.R;
import static org.iwarp4j.mpa.MpaStartupFixtures.S;
import static org.iwarp4j.mpa.MpaStartupFixtures.TIMEOUT;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertExitedMpa;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertFullOperation;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.elapse;
import static org.iwarp4j.mpa.MpaStartupFixtures.failure;
import static org.iwarp4j.mpa.MpaStartupFixtures.flags;
import static org.iwarp4j.mpa.MpaStartupFixtures.fpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.reply;
import static org.iwarp4j.mpa.MpaStartupFixtures.request;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;
import static org.iwarp4j.mpa.MpaStartupFixtures.ulpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.word;
import static org.iwarp4j.mpa.MpaStartupFixtures.write;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MPA-R-046 (M bit) and MPA-R-047 (C bit): all 4 x 4 combinations of M and C in the Request and
 * the Reply, for each role, checked in the {@link NegotiatedParameters} and in the octets that
 * the installed framing sends and accepts in each direction. Also MPA-R-023 / MPA-R-026 (an
 * administrative "no CRC" loses to a peer's C=1) and the {@link NegotiationMode#OFF} refusals.
 */
class StartupMarkerCrcNegotiationTest {

    static Stream<Arguments> combinations() {
        List<Arguments> all = new ArrayList<>();
        for (boolean mReq : new boolean[] {false, true}) {
            for (boolean mRep : new boolean[] {false, true}) {
                for (boolean cReq : new boolean[] {false, true}) {
                    for (boolean cRep : new boolean[] {false, true}) {
                        all.add(Arguments.of(mReq, mRep, cReq, cRep));
                    }
                }
            }
        }
        return all.stream();
    }

    private static MpaSettings settings(boolean m, boolean c) {
        return MpaSettings.builder().revision(1)
                .markers(m ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .crc(c ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .build();
    }

    private static int bits(boolean m, boolean c) {
        return (m ? M : 0) | (c ? C : 0);
    }

    @ParameterizedTest(name = "Request M={0} C={2}, Reply M={1} C={3}")
    @MethodSource("combinations")
    void mpaR046_mpaR047_initiator(boolean mReq, boolean mRep, boolean cReq, boolean cRep) {
        // MPA-R-046, MPA-R-047: as Initiator.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(settings(mReq, cReq));
        EmbeddedChannel ch = channel(initiator);
        byte[] sent = Wire.outbound(ch);
        assertThat(flags(sent)).isEqualTo(bits(mReq, cReq));

        ch.writeInbound(Wire.buf(reply(bits(mRep, cRep), 1, new byte[0])));
        NegotiatedParameters p = success(initiator);
        // C: any 1 -> both generate and check; only 0/0 turns CRC off (MPA-R-047, MPA-R-023 2b).
        assertThat(p.crc()).isEqualTo(cReq || cRep);
        // M: markers go toward the end whose frame had M=1, never toward one with M=0 (MPA-R-046).
        assertThat(p.markersToPeer()).as("we add markers: the Reply had M=1").isEqualTo(mRep);
        assertThat(p.markersFromPeer()).as("peer adds markers: our Request had M=1").isEqualTo(mReq);
        assertFullOperation(ch);
        checkBothDirections(ch, false, mRep, mReq, cReq || cRep);
    }

    @ParameterizedTest(name = "Request M={0} C={2}, Reply M={1} C={3}")
    @MethodSource("combinations")
    void mpaR046_mpaR047_responder(boolean mReq, boolean mRep, boolean cReq, boolean cRep) {
        // MPA-R-046, MPA-R-047: as Responder.
        MpaStartupHandler responder = MpaStartupHandler.responder(settings(mRep, cRep),
                ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(bits(mReq, cReq), 1, new byte[0])));
        byte[] sent = Wire.outbound(ch);
        assertThat(flags(sent)).isEqualTo(bits(mRep, cRep));

        NegotiatedParameters p = success(responder);
        assertThat(p.crc()).isEqualTo(cReq || cRep);
        assertThat(p.markersToPeer()).as("we add markers: the Request had M=1").isEqualTo(mReq);
        assertThat(p.markersFromPeer()).as("peer adds markers: our Reply had M=1").isEqualTo(mRep);
        assertFullOperation(ch);
        checkBothDirections(ch, true, mReq, mRep, cReq || cRep);
    }

    /**
     * Inbound: a valid FPDU shaped as the peer must send it (leading marker iff markers come from
     * the peer) is delivered; a second FPDU with CRC {@code DEADBEEF} is delivered only when CRC
     * is off (MPA-R-027), else it is error 2 (MPA-R-026). Outbound: the FPDU starts with a marker
     * iff markers go to the peer (MPA-R-064) and carries a valid CRC when CRC is on.
     */
    private static void checkBothDirections(EmbeddedChannel ch, boolean responder, boolean markersOut,
                                            boolean markersIn, boolean crc) {
        byte[] u1 = ulpdu("V-RTR-1");
        byte[] u2 = ulpdu("V-FPDU-5");
        byte[] u3 = ulpdu("V-FPDU-7");

        if (!responder) {
            checkOutbound(ch, u3, markersOut, crc);
        }
        ch.writeInbound(Wire.buf(fpdu(u1, markersIn, true)));
        assertThat(Wire.inbound(ch)).containsExactly(u1);
        if (responder) {
            // Only now, after the Initiator's first FPDU, may the Responder send (MPA-R-061).
            checkOutbound(ch, u3, markersOut, crc);
        }
        byte[] badCrc = fpdu(u2, false, false);
        if (crc) {
            assertThat(Wire.inboundError(ch, badCrc).error()).isEqualTo(MpaError.CRC_ERROR);
            assertThat(Wire.inbound(ch)).isEmpty();
        } else {
            ch.writeInbound(Wire.buf(badCrc));
            assertThat(Wire.inbound(ch)).containsExactly(u2);
        }
        assertThat(ch.finish()).isFalse();
    }

    private static void checkOutbound(EmbeddedChannel ch, byte[] ulpdu, boolean markers, boolean crc) {
        assertThat(write(ch, ulpdu).isSuccess()).isTrue();
        byte[] out = Wire.outbound(ch);
        byte[] expected = fpdu(ulpdu, markers, true);
        assertThat(out).hasSize(expected.length);
        if (crc) {
            assertThat(out).isEqualTo(expected);
        } else {
            // With CRC off the field is present but its value is free (RFC 5044 §4.1, MPA-R-013).
            assertThat(Arrays.copyOf(out, out.length - 4)).isEqualTo(Arrays.copyOf(expected, expected.length - 4));
        }
    }

    @Test
    void mpaR023_adminNoCrcStillUsesCrcWhenThePeerAsks() {
        // MPA-R-023 (2a/2b), MPA-R-026: we asked for no CRC (C=0); the peer's C=1 wins, so our FPDUs
        // carry a real CRC and a bad one from the peer is error 2.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(settings(false, false));
        EmbeddedChannel ch = channel(initiator);
        assertThat(flags(Wire.outbound(ch)) & C).isZero();
        ch.writeInbound(Wire.buf(org.iwarp4j.testkit.TestVectors.bytes("V-MPA-REP1")));
        assertThat(success(initiator).crc()).isTrue();
        write(ch, ulpdu("V-RTR-1"));
        assertThat(Wire.outbound(ch)).isEqualTo(org.iwarp4j.testkit.TestVectors.bytes("V-RTR-1"));
        assertThat(Wire.inboundError(ch, org.iwarp4j.testkit.TestVectors.bytes("V-CRCOFF")).error())
                .isEqualTo(MpaError.CRC_ERROR);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ NegotiationMode.OFF

    @Test
    void initiatorWithMarkersOffClosesWhenTheReplyAsksForMarkers() {
        // NegotiationMode.OFF (documented departure from MPA-R-015): the Initiator refuses by closing.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().revision(1).markers(NegotiationMode.OFF).build());
        EmbeddedChannel ch = channel(initiator);
        assertThat(flags(Wire.outbound(ch)) & M).isZero();
        ch.writeInbound(Wire.buf(reply(M | C, 1, new byte[0])));
        assertThat(ch.isOpen()).isFalse();
        MpaException e = failure(initiator);
        assertThat(e).isExactlyInstanceOf(MpaException.class);
        assertThat(e.terminateRequired()).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void initiatorWithCrcOffClosesWhenTheReplyAsksForCrc() {
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().revision(1).crc(NegotiationMode.OFF).build());
        EmbeddedChannel ch = channel(initiator);
        assertThat(flags(Wire.outbound(ch)) & C).isZero();
        ch.writeInbound(Wire.buf(reply(C, 1, new byte[0])));
        assertThat(ch.isOpen()).isFalse();
        assertThat(failure(initiator)).isExactlyInstanceOf(MpaException.class);
        assertThat(ch.finish()).isFalse();
    }

    @ParameterizedTest(name = "markers off {0}, Reply flags {1}")
    @MethodSource("enhancedRefusals")
    void mpa2R021_enhancedInitiatorRefusingTheReplyTerminatesWithCode5(boolean markersOff, int replyFlags) {
        // MPA2-R-021 (RFC 6581 §9.3): after an enhanced Reply a local error with no code of its own
        // (refusing M or C) is reported with a Terminate LLP/MPA code 5 before the reset. MPA enters
        // Full Operation framed as the Reply asked, so the ULP's Terminate (V-FPDU-8's, code 6 made 5)
        // goes out with the leading marker the Reply's M asks for and a real CRC.
        byte[] terminate = ulpdu("V-FPDU-8");
        terminate[19] = (byte) MpaError.LOCAL_CATASTROPHIC.code();
        MpaStartupFixtures.Probe ulp = new MpaStartupFixtures.Probe(
                e -> !e.isSuccess() && e.cause().terminateRequired() ? terminate : null);
        MpaSettings.Builder settings = MpaSettings.builder();
        MpaStartupHandler initiator = MpaStartupHandler.initiator(markersOff
                ? settings.markers(NegotiationMode.OFF).build() : settings.crc(NegotiationMode.OFF).build());
        EmbeddedChannel ch = channel(initiator, ulp);
        assertThat(flags(Wire.outbound(ch)) & (markersOff ? M : C)).isZero();
        ch.writeInbound(Wire.buf(reply(replyFlags | S, 2, word(16, 16))));

        MpaException e = failure(initiator);
        assertThat(e.error()).isEqualTo(MpaError.LOCAL_CATASTROPHIC);
        assertThat(e.terminateRequired()).isTrue();
        assertThat(ch.isOpen()).isTrue();
        assertFullOperation(ch);
        assertThat(ulp.writes).hasSize(1);
        assertThat(ulp.writes.get(0).isSuccess()).as("%s", ulp.writes.get(0).cause()).isTrue();
        assertThat(Wire.outbound(ch)).isEqualTo(fpdu(terminate, (replyFlags & M) != 0, true));
        // If the ULP does not close, the startup timeout does.
        elapse(ch, TIMEOUT);
        assertThat(ch.isOpen()).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    static Stream<Arguments> enhancedRefusals() {
        return Stream.of(Arguments.of(true, M | C), Arguments.of(true, M), Arguments.of(false, C));
    }

    @Test
    void initiatorWithBothOffProceedsWhenThePeerAsksForNeither() {
        MpaStartupHandler initiator = MpaStartupHandler.initiator(MpaSettings.builder().revision(1)
                .markers(NegotiationMode.OFF).crc(NegotiationMode.OFF).build());
        EmbeddedChannel ch = channel(initiator);
        assertThat(flags(Wire.outbound(ch))).isZero();
        ch.writeInbound(Wire.buf(reply(0, 1, new byte[0])));
        NegotiatedParameters p = success(initiator);
        assertThat(p.crc()).isFalse();
        assertThat(p.markersToPeer()).isFalse();
        assertThat(p.markersFromPeer()).isFalse();
        // MPA-R-013 / MPA-R-027: CRC off both ways -> a garbage CRC is accepted on the first FPDU.
        ch.writeInbound(Wire.buf(org.iwarp4j.testkit.TestVectors.bytes("V-CRCOFF")));
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-CRCOFF"));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void responderWithMarkersOffRejectsARequestForMarkers() {
        // NegotiationMode.OFF: the Responder answers R=1 (MPA-R-056) and leaves TCP open.
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().markers(NegotiationMode.OFF).build(), ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(M | C, 1, new byte[0])));
        byte[] reply = Wire.outbound(ch);
        assertThat(flags(reply) & R).isEqualTo(R);
        assertThat(flags(reply) & M).isZero();
        assertThat(ch.isOpen()).isTrue();
        assertExitedMpa(ch);
        MpaException e = failure(responder);
        assertThat(e).isInstanceOf(MpaRejectedException.class);
        assertThat(((MpaRejectedException) e).byPeer()).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void responderWithCrcOffRejectsARequestForCrc() {
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().crc(NegotiationMode.OFF).build(), ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(org.iwarp4j.testkit.TestVectors.bytes("V-MPA-REQ1")));
        byte[] reply = Wire.outbound(ch);
        assertThat(flags(reply) & R).isEqualTo(R);
        assertThat(flags(reply) & C).isZero();
        assertThat(ch.isOpen()).isTrue();
        assertThat(failure(responder)).isInstanceOf(MpaRejectedException.class);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void responderWithBothOffAcceptsARequestForNeither() {
        MpaStartupHandler responder = MpaStartupHandler.responder(MpaSettings.builder()
                .markers(NegotiationMode.OFF).crc(NegotiationMode.OFF).build(), ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(0, 1, new byte[0])));
        byte[] reply = Wire.outbound(ch);
        assertThat(flags(reply)).isZero();
        NegotiatedParameters p = success(responder);
        assertThat(p.crc()).isFalse();
        assertThat(p.markersToPeer()).isFalse();
        assertThat(ch.finish()).isFalse();
    }
}
