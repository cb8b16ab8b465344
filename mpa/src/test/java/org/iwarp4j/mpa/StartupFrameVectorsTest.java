package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.mpa.MpaStartupFixtures.C;
import static org.iwarp4j.mpa.MpaStartupFixtures.REPLY_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.REQUEST_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.flags;
import static org.iwarp4j.mpa.MpaStartupFixtures.pdLength;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.Set;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;

/**
 * testdata/vectors/mpa-startup.txt: the startup frames, produced byte for byte by our handler with the matching
 * settings, and accepted when they come from the peer.
 */
class StartupFrameVectorsTest {

    @Test
    void keysAreTheAsciiStringsOfTheRfc() {
        // MPA-R-044 / MPA-R-045: "MPA ID Req Frame" / "MPA ID Rep Frame", differing only at octet 10.
        assertThat(new String(REQUEST_KEY, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("MPA ID Req Frame");
        assertThat(new String(REPLY_KEY, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("MPA ID Rep Frame");
        // The octets RFC 5044 §7.1.1 prints for each key.
        assertThat(TestVectors.bytes("V-MPA-KEY-REQ")).isEqualTo(REQUEST_KEY);
        assertThat(TestVectors.bytes("V-MPA-KEY-REP")).isEqualTo(REPLY_KEY);
        assertThat(MpaConstants.requestKey()).isEqualTo(REQUEST_KEY);
        assertThat(MpaConstants.replyKey()).isEqualTo(REPLY_KEY);
    }

    @Test
    void mpaR053_initiatorSendsVMpaReq1() {
        // MPA-R-053 valid Request; MPA-R-043 exactly 20 + PD_Length octets, no CRC, no marker;
        // MPA-R-049 Res bits 0 on send; MPA2-R-022 no enhanced format when none is wanted (Rev 1, S=0).
        MpaSettings settings = MpaSettings.builder().revision(1).build();
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(settings));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REQ1"));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpaR057_responderAnswersVMpaReq1WithVMpaRep1() {
        // MPA-R-057 accept = Reply with R=0; MPA2-R-014 a revision 2 capable Responder answers a
        // revision 1 Request with a revision 1 Reply (default settings are revision 2).
        MpaStartupHandler responder = MpaStartupHandler.responder(MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        assertThat(Wire.outbound(ch)).isEmpty();
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(success(responder).revision()).isEqualTo(1);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR060_initiatorAcceptsVMpaRep1() {
        // MPA-R-060: a well-formed accepting Reply (V-MPA-REP1) answers V-MPA-REQ1 and enters Full Operation.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(MpaSettings.builder().revision(1).build());
        EmbeddedChannel ch = channel(initiator);
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REQ1"));
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        NegotiatedParameters p = success(initiator);
        assertThat(p.revision()).isEqualTo(1);
        assertThat(p.crc()).isTrue();
        assertThat(p.markersToPeer()).isFalse();
        assertThat(p.markersFromPeer()).isFalse();
        MpaStartupFixtures.assertFullOperation(ch);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpa2R001_initiatorSendsVMpaReq2() {
        // MPA2-R-001: Rev 2, S, IRD/ORD word first, PD_Length counts it; client-server (A=0, MPA2-R-019),
        // then the RFC 8797 block V-CMPD-1 as the ULP's private data.
        MpaSettings settings = MpaSettings.builder().revision(2).ird(16).ord(16)
                .privateData(TestVectors.bytes("V-CMPD-1")).build();
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(settings));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REQ2"));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpa2R024_initiatorSendsVMpaReq2P2p() {
        // MPA2-R-024 per-connection peer-to-peer request; MPA2-R-008 A=1 and C=1 for the one RTR
        // option it supports (zero-length Write); IRD 4, ORD 4.
        MpaSettings settings = MpaSettings.builder().revision(2).ird(4).ord(4).peerToPeer(true)
                .rtrTypes(Set.of(RtrType.WRITE)).build();
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(settings));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REQ2-P2P"));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpa2R016_responderHandsVMpaReq2PrivateDataToTheUlpWithoutTheWord() {
        // MPA2-R-016: the ULP sees the RFC 8797 block at its offset 0; MPA2-R-017 it also sees IRD/ORD.
        MpaConnectRequest[] seen = new MpaConnectRequest[1];
        MpaStartupHandler responder = MpaStartupHandler.responder(MpaSettings.builder().build(), request -> {
            seen[0] = request;
            return java.util.concurrent.CompletableFuture.completedFuture(MpaDecision.accept());
        });
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ2")));
        byte[] reply = Wire.outbound(ch);
        assertThat(seen[0].ulpPrivateData()).isEqualTo(TestVectors.bytes("V-CMPD-1"));
        assertThat(seen[0].enhancedData()).isEqualTo(new EnhancedConnectionData(false, Set.of(), 16, 16));
        assertThat(success(responder).peerPrivateData()).isEqualTo(TestVectors.bytes("V-CMPD-1"));
        // MPA2-R-003: enhanced Reply.
        assertThat(Arrays.copyOf(reply, 16)).isEqualTo(REPLY_KEY);
        assertThat(flags(reply)).isEqualTo(C | MpaStartupFixtures.S);
        assertThat(MpaStartupFixtures.revision(reply)).isEqualTo(2);
        assertThat(pdLength(reply)).isEqualTo(4);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR043_startupFramesNeverCarryCrcOrMarkers() {
        // MPA-R-043: even with markers and CRC required, the Request is exactly 20 + PD_Length octets.
        byte[] pd = "seven!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        MpaSettings settings = MpaSettings.builder().revision(1).markers(NegotiationMode.REQUIRE)
                .crc(NegotiationMode.REQUIRE).privateData(pd).build();
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(settings));
        byte[] request = Wire.outbound(ch);
        assertThat(request).isEqualTo(MpaStartupFixtures.request(MpaStartupFixtures.M | C, 1, pd));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpaR002_defaultSettingsAskForCrc() {
        // MPA-R-002 / MPA-R-023: CRC is on unless an administrator turns it off; default frames carry C=1.
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(MpaSettings.builder().build()));
        byte[] request = Wire.outbound(ch);
        assertThat(flags(request) & C).isEqualTo(C);
        assertThat(flags(request) & MpaStartupFixtures.M).isZero();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpaR052_localPrivateDataIsLimitedByTheApi() {
        // MPA-R-052: 0..512 octets of private data; MPA2-R-016: 508 when the 4-octet word is sent.
        assertThatThrownBy(() -> MpaSettings.builder().revision(1).privateData(new byte[513]).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MpaSettings.builder().revision(2).privateData(new byte[509]).build())
                .isInstanceOf(IllegalArgumentException.class);

        EmbeddedChannel rev1 = channel(MpaStartupHandler.initiator(
                MpaSettings.builder().revision(1).privateData(new byte[512]).build()));
        byte[] request1 = Wire.outbound(rev1);
        assertThat(pdLength(request1)).isEqualTo(512);
        assertThat(request1).hasSize(20 + 512);
        assertThat(rev1.finishAndReleaseAll()).isFalse();

        EmbeddedChannel rev2 = channel(MpaStartupHandler.initiator(
                MpaSettings.builder().revision(2).privateData(new byte[508]).build()));
        byte[] request2 = Wire.outbound(rev2);
        assertThat(pdLength(request2)).isEqualTo(512);
        assertThat(request2).hasSize(20 + 512);
        assertThat(rev2.finishAndReleaseAll()).isFalse();
    }

    @Test
    void fpduFixtureMatchesThePublishedVectors() {
        // Guards the test-side FPDU builder used by the negotiation tests against RFC 5044 Figure 5 and V-RTR-1.
        byte[] f5 = TestVectors.bytes("V-MPA-F5");
        assertThat(MpaStartupFixtures.fpdu(Arrays.copyOfRange(f5, 6, 48), true, true)).isEqualTo(f5);
        assertThat(MpaStartupFixtures.fpdu(MpaStartupFixtures.ulpdu("V-RTR-1"), false, true))
                .isEqualTo(TestVectors.bytes("V-RTR-1"));
    }
}
