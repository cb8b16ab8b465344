package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.mpa.MpaStartupFixtures.C;
import static org.iwarp4j.mpa.MpaStartupFixtures.R;
import static org.iwarp4j.mpa.MpaStartupFixtures.REPLY_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.S;
import static org.iwarp4j.mpa.MpaStartupFixtures.TIMEOUT;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertFullOperation;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertInvalidFrame;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.elapse;
import static org.iwarp4j.mpa.MpaStartupFixtures.failure;
import static org.iwarp4j.mpa.MpaStartupFixtures.flags;
import static org.iwarp4j.mpa.MpaStartupFixtures.irdHalf;
import static org.iwarp4j.mpa.MpaStartupFixtures.key;
import static org.iwarp4j.mpa.MpaStartupFixtures.ordHalf;
import static org.iwarp4j.mpa.MpaStartupFixtures.pdLength;
import static org.iwarp4j.mpa.MpaStartupFixtures.privateData;
import static org.iwarp4j.mpa.MpaStartupFixtures.reply;
import static org.iwarp4j.mpa.MpaStartupFixtures.request;
import static org.iwarp4j.mpa.MpaStartupFixtures.revision;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;
import static org.iwarp4j.mpa.MpaStartupFixtures.ulpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.word;
import static org.iwarp4j.mpa.MpaStartupFixtures.write;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 6581 (MPA revision 2): the IRD/ORD word, peer-to-peer and RTR negotiation, interoperability. */
class EnhancedNegotiationTest {

    /** Flag bits of the two 16-bit halves of the word (RFC 6581 §9): A, B in the IRD half; C, D in the ORD half. */
    private static final int A = 0x8000;
    private static final int B = 0x4000;
    private static final int CW = 0x8000;
    private static final int D = 0x4000;
    private static final int NO_NEGOTIATION = 0x3FFF;

    private static final MpaSettings DEFAULTS = MpaSettings.builder().build();
    private static final MpaSettings P2P = MpaSettings.builder().peerToPeer(true)
            .rtrTypes(Set.of(RtrType.WRITE, RtrType.READ)).build();

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] enhancedRequest(int irdHalf, int ordHalf, byte[] ulpPd) {
        return request(C | S, 2, Wire.concat(word(irdHalf, ordHalf), ulpPd));
    }

    private static byte[] enhancedReply(int irdHalf, int ordHalf, byte[] ulpPd) {
        return reply(C | S, 2, Wire.concat(word(irdHalf, ordHalf), ulpPd));
    }

    /** Our Responder after the given Request: the Reply it sent. */
    private static final class Answered {
        final MpaStartupHandler handler;
        final EmbeddedChannel ch;
        final byte[] reply;
        MpaConnectRequest seen;

        Answered(MpaSettings settings, byte[] request) {
            handler = MpaStartupHandler.responder(settings, r -> {
                seen = r;
                return CompletableFuture.completedFuture(MpaDecision.accept());
            });
            ch = channel(handler);
            ch.writeInbound(Wire.buf(request));
            reply = Wire.outbound(ch);
        }

        void finish() {
            assertThat(ch.finish()).isFalse();
        }
    }

    /** Our Initiator with the given settings after the given Reply. */
    private static final class Replied {
        final MpaStartupHandler handler;
        final EmbeddedChannel ch;
        final byte[] request;
        final MpaStartupFixtures.Probe probe;

        Replied(MpaSettings settings, byte[] reply) {
            this(settings, reply, new MpaStartupFixtures.Probe());
        }

        Replied(MpaSettings settings, byte[] reply, MpaStartupFixtures.Probe probe) {
            this.probe = probe;
            handler = MpaStartupHandler.initiator(settings);
            ch = channel(handler, probe);
            request = Wire.outbound(ch);
            ch.writeInbound(Wire.buf(reply));
        }

        void finish() {
            assertThat(ch.finishAndReleaseAll()).isFalse();
        }
    }

    /** A setup error the ULP must answer with a Terminate: open connection, Full Operation. */
    private static MpaException assertTerminateRequired(Replied r, MpaError error) {
        MpaException e = failure(r.handler);
        assertThat(e.error()).isEqualTo(error);
        assertThat(e.terminateRequired()).isTrue();
        assertThat(e).isNotInstanceOf(MpaRejectedException.class);
        assertThat(r.ch.isOpen()).isTrue();
        assertFullOperation(r.ch);
        assertThat(r.probe.only().cause()).isSameAs(e);
        return e;
    }

    // ------------------------------------------------------------------ frame format

    @Test
    void mpa2R001_pdLengthCountsTheWordAndTheWordComesFirst() {
        // MPA2-R-001: PD_Length counts the IRD/ORD word, and the word comes first.
        byte[] pd = ascii("abc");
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(
                MpaSettings.builder().ird(5).ord(7).privateData(pd).build()));
        byte[] req = Wire.outbound(ch);
        assertThat(revision(req)).isEqualTo(2);
        assertThat(flags(req) & S).isEqualTo(S);
        assertThat(pdLength(req)).isEqualTo(7);
        assertThat(irdHalf(req)).isEqualTo(5);
        assertThat(ordHalf(req)).isEqualTo(7);
        assertThat(Arrays.copyOfRange(req, 24, req.length)).isEqualTo(pd);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @ParameterizedTest(name = "PD_Length {0}")
    @ValueSource(ints = {0, 2, 3})
    void mpa2R002_enhancedRequestTooShortForTheWordCloses(int pdLength) {
        // MPA2-R-002: S=1 with PD_Length < 4 is an invalid frame; we take RFC 5044 §7.1.2 #2's
        // choice (close, code 4) and never read IRD/ORD from absent octets (the ULP is not asked).
        boolean[] asked = new boolean[1];
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, r -> {
            asked[0] = true;
            return CompletableFuture.completedFuture(MpaDecision.accept());
        });
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(C | S, 2, new byte[pdLength])));
        assertThat(ch.isOpen()).isFalse();
        assertThat(Wire.outbound(ch)).isEmpty();
        assertInvalidFrame(responder);
        assertThat(asked[0]).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpa2R002_enhancedReplyTooShortForTheWordCloses() {
        // MPA2-R-002: an enhanced Reply too short for the word closes (error 4).
        Replied r = new Replied(DEFAULTS, reply(C | S, 2, new byte[2]));
        assertThat(r.ch.isOpen()).isFalse();
        assertInvalidFrame(r.handler);
        r.finish();
    }

    @Test
    void mpa2R003_enhancedRequestGetsAnEnhancedReply() {
        // MPA2-R-003: Rev 2, S=1 and our own word (IRD 16, ORD 16 of the default settings).
        Answered a = new Answered(DEFAULTS, TestVectors.bytes("V-MPA-REQ2"));
        assertThat(a.reply).isEqualTo(enhancedReply(16, 16, new byte[0]));
        assertThat(success(a.handler).revision()).as("MPA-R-009").isEqualTo(2);
        a.finish();
    }

    @Test
    void mpa2R003_mpa2R005_enhancedRejectCarriesTheWordAndTheUlpData() {
        // MPA2-R-003 on a reject, and MPA2-R-005: a reject Reply can tell the Initiator our ORD/IRD.
        byte[] why = ascii("need more IRD");
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS,
                r -> CompletableFuture.completedFuture(MpaDecision.reject(why, "IRD too small")));
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(enhancedRequest(2, 4, new byte[0])));
        byte[] rep = Wire.outbound(ch);
        assertThat(flags(rep)).isEqualTo(C | R | S);
        assertThat(revision(rep)).isEqualTo(2);
        assertThat(irdHalf(rep)).isEqualTo(4);
        assertThat(ordHalf(rep)).isEqualTo(2);
        assertThat(Arrays.copyOfRange(rep, 24, rep.length)).isEqualTo(why);
        MpaRejectedException e = (MpaRejectedException) failure(responder);
        assertThat(e.ulpPrivateData()).isEqualTo(why);
        assertThat(e.enhancedData()).isEqualTo(new EnhancedConnectionData(false, Set.of(), 4, 2));
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ interoperability

    @Test
    void mpa2R004_rev2ReplyWithoutSToAnEnhancedRequestFails() {
        // MPA2-R-004: an enhanced Responder MUST reply enhanced; Rev 2 without S is a protocol failure.
        Replied r = new Replied(DEFAULTS, reply(C, 2, new byte[0]));
        assertThat(flags(r.request) & S).isEqualTo(S);
        assertThat(r.ch.isOpen()).isFalse();
        assertInvalidFrame(r.handler);
        r.finish();
    }

    @Test
    void mpa2R004_rev1ReplyToAnEnhancedRequestFallsBackToRfc5044() {
        // MPA2-R-004, documented choice (as cxgb4): a Rev 1 Reply is taken as an RFC 5044 Responder;
        // no word, no RTR, IRD/ORD left to the ULP (the settings' values, unchanged).
        byte[] pd = ascii("rfc5044-pd");
        Replied r = new Replied(P2P.toBuilder().ird(3).ord(5).build(), reply(C, 1, pd));
        NegotiatedParameters p = success(r.handler);
        assertThat(p.revision()).isEqualTo(1);
        assertThat(p.peerEnhancedData()).isNull();
        assertThat(p.peerPrivateData()).isEqualTo(pd);
        assertThat(p.peerToPeer()).isFalse();
        assertThat(p.rtr()).isNull();
        assertThat(p.ird()).isEqualTo(3);
        assertThat(p.ord()).isEqualTo(5);
        assertFullOperation(r.ch);
        r.finish();
    }

    @Test
    void mpa2R014_rev1RequestGetsARev1ReplyAndItsPrivateDataUnchanged() {
        // MPA2-R-014: keep accepting Rev 1; answer without the word; PD to the ULP as it came.
        // Starts like a word (C0 10 C0 10), but S is not set: it is all the ULP's.
        byte[] pd = Wire.concat(new byte[] {(byte) 0xC0, 0x10, (byte) 0xC0, 0x10}, ascii("rest"));
        Answered a = new Answered(DEFAULTS, request(C, 1, pd));
        assertThat(a.reply).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(a.seen.ulpPrivateData()).isEqualTo(pd);
        assertThat(a.seen.enhancedData()).isNull();
        NegotiatedParameters p = success(a.handler);
        assertThat(p.peerPrivateData()).isEqualTo(pd);
        assertThat(p.peerToPeer()).isFalse();
        a.finish();
    }

    @Test
    void mpa2R014_unenhancedRev2RequestGetsAnUnenhancedReply() {
        // MPA2-R-014: a revision 2 Request without S gets a plain Reply.
        // RFC 6581 §10: an unenhanced Request (S=0) gets an unenhanced Reply, whatever its Rev.
        byte[] pd = ascii("plain");
        Answered a = new Answered(DEFAULTS, request(C, 2, pd));
        assertThat(flags(a.reply) & S).isZero();
        assertThat(pdLength(a.reply)).isZero();
        assertThat(a.seen.ulpPrivateData()).isEqualTo(pd);
        assertThat(success(a.handler).peerPrivateData()).isEqualTo(pd);
        a.finish();
    }

    @Test
    void mpa2R022_noEnhancedFormatWhenNoEnhancedFunctionIsWanted() {
        // MPA2-R-022: configured for RFC 5044 only -> Rev 1, S=0, PD_Length = the ULP's data alone.
        byte[] pd = ascii("ulp");
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(
                MpaSettings.builder().revision(1).peerToPeer(false).privateData(pd).build()));
        byte[] req = Wire.outbound(ch);
        assertThat(revision(req)).isEqualTo(1);
        assertThat(flags(req) & S).isZero();
        assertThat(privateData(req)).isEqualTo(pd);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    // ------------------------------------------------------------------ IRD / ORD

    @Test
    void mpa2R005_responderOrdAtMostInitiatorIrdAndIrdWhatItConfigures() {
        // MPA2-R-005: Responder ORD at most the Initiator's IRD; its IRD what it configures.
        // Initiator IRD 4, ORD 8; we can give IRD 16, ORD 16.
        Answered a = new Answered(DEFAULTS, enhancedRequest(4, 8, new byte[0]));
        NegotiatedParameters p = success(a.handler);
        assertThat(ordHalf(a.reply)).isLessThanOrEqualTo(4);
        assertThat(p.ord()).isEqualTo(ordHalf(a.reply));
        assertThat(irdHalf(a.reply)).isEqualTo(p.ird());
        assertThat(p.ird()).as("successful: responder IRD >= initiator ORD").isGreaterThanOrEqualTo(8);
        a.finish();

        // With only IRD 2 configured the Reply says 2 (the real value), below the Initiator's ORD 8.
        Answered small = new Answered(MpaSettings.builder().ird(2).build(), enhancedRequest(4, 8, new byte[0]));
        assertThat(irdHalf(small.reply)).isEqualTo(2);
        assertThat(success(small.handler).ird()).isEqualTo(2);
        small.finish();
    }

    @Test
    void mpa2R005_readRtrRaisesResponderIrdToOne() {
        // MPA2-R-005: a possible Read RTR raises the Responder's IRD to 1.
        // Initiator ORD 0, peer-to-peer offering only the Read RTR: a zero-length Read needs an IRD slot.
        Answered a = new Answered(DEFAULTS, enhancedRequest(A | 4, D, new byte[0]));
        assertThat(ordHalf(a.reply) & D).isEqualTo(D);
        assertThat(irdHalf(a.reply) & NO_NEGOTIATION).isGreaterThanOrEqualTo(1);
        assertThat(success(a.handler).ird()).isGreaterThanOrEqualTo(1);
        a.finish();
    }

    @Test
    void mpa2R006_initiatorLowersOrdToResponderIrdAndKeepsIrdAtLeastResponderOrd() {
        // MPA2-R-006: the Initiator lowers ORD to the Responder's IRD; its IRD stays at least the Responder's ORD.
        Replied r = new Replied(DEFAULTS, enhancedReply(4, 10, new byte[0]));
        NegotiatedParameters p = success(r.handler);
        assertThat(p.ord()).isEqualTo(4);
        assertThat(p.ird()).isEqualTo(16).isGreaterThanOrEqualTo(10);
        r.finish();
    }

    @Test
    void mpa2R006_responderOrdEqualToOurIrdIsFine() {
        // MPA2-R-006: a Responder ORD equal to our IRD is fine.
        Replied r = new Replied(DEFAULTS, enhancedReply(16, 16, new byte[0]));
        assertThat(success(r.handler).ird()).isEqualTo(16);
        r.finish();
    }

    @Test
    void mpa2R006_responderOrdAboveOurIrdIsInsufficientIrdAndTheUlpCanSendItsTerminate() {
        // MPA2-R-006: Reply ORD 0x3FFE > our IRD 16 -> INSUFFICIENT_IRD (6), terminateRequired();
        // MPA stays in Full Operation so that the ULP's Terminate goes out framed with the
        // negotiated CRC: here the ULP writes the ULPDU of V-FPDU-8 (LLP/MPA/code 6) when told.
        // Writes made before the Reply must not precede it: they fail with the same error.
        MpaStartupFixtures.Probe ulp = new MpaStartupFixtures.Probe(
                e -> !e.isSuccess() && e.cause().terminateRequired() ? ulpdu("V-FPDU-8") : null);
        MpaStartupHandler initiator = MpaStartupHandler.initiator(DEFAULTS);
        EmbeddedChannel ch = channel(initiator, ulp);
        Wire.outbound(ch);
        ChannelFuture early = write(ch, ulpdu("V-FPDU-1"));
        ch.writeInbound(Wire.buf(enhancedReply(16, 0x3FFE, new byte[0])));

        MpaException e = failure(initiator);
        assertThat(e.error()).isEqualTo(MpaError.INSUFFICIENT_IRD);
        assertThat(e.error().code()).isEqualTo(6);
        assertThat(e.terminateRequired()).isTrue();
        assertThat(ch.isOpen()).isTrue();
        assertFullOperation(ch);
        assertThat(early.cause()).isSameAs(e);
        assertThat(ulp.writes).hasSize(1);
        assertThat(ulp.writes.get(0).isSuccess()).as("%s", ulp.writes.get(0).cause()).isTrue();
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-8"));

        // If the ULP does not close, the startup timeout does.
        elapse(ch, TIMEOUT);
        assertThat(ch.isOpen()).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpa2R006_oneAboveOurIrdIsAlreadyInsufficient() {
        // MPA2-R-006: one above our IRD is already insufficient.
        Replied r = new Replied(DEFAULTS.toBuilder().ird(3).build(), enhancedReply(16, 4, new byte[0]));
        assertTerminateRequired(r, MpaError.INSUFFICIENT_IRD);
        r.finish();
    }

    @Test
    void relaxedIrdRaisesOurIrdToTheResponderOrdWithinTheLimit() {
        // docs/interop.md: as iw_cxgb4 (RELAXED_IRD_NEGOTIATION), an opt-in limit lets the Reply's
        // ORD 32 raise our IRD 16 instead of Terminating with code 6. Our Request still offered 16.
        MpaSettings relaxed = DEFAULTS.toBuilder().relaxedIrdLimit(64).build();
        Replied r = new Replied(relaxed, enhancedReply(16, 32, new byte[0]));
        assertThat(java.util.Arrays.copyOfRange(r.request, 20, 24)).isEqualTo(word(16, 16));
        NegotiatedParameters p = success(r.handler);
        assertThat(p.ird()).isEqualTo(32);
        assertThat(p.ord()).isEqualTo(16);
        assertThat(Wire.outbound(r.ch)).as("no Terminate").isEmpty();
        r.finish();
    }

    @Test
    void relaxedIrdStillTerminatesAboveTheLimit() {
        // MPA2-R-006 holds beyond the limit: Reply ORD 33 > limit 32 -> insufficient IRD (6).
        MpaSettings relaxed = DEFAULTS.toBuilder().relaxedIrdLimit(32).build();
        Replied r = new Replied(relaxed, enhancedReply(16, 33, new byte[0]));
        assertTerminateRequired(r, MpaError.INSUFFICIENT_IRD);
        r.finish();
    }

    @Test
    void mpa2R018_allOnesRequestWordIsEchoedAndLocalValuesStay() {
        // MPA2-R-018: Initiator IRD and ORD 0x3FFF -> Reply IRD and ORD 0x3FFF, our queues unchanged.
        MpaSettings ours = MpaSettings.builder().ird(6).ord(9).build();
        Answered a = new Answered(ours, enhancedRequest(NO_NEGOTIATION, NO_NEGOTIATION, new byte[0]));
        assertThat(privateData(a.reply)).isEqualTo(word(NO_NEGOTIATION, NO_NEGOTIATION));
        NegotiatedParameters p = success(a.handler);
        assertThat(p.ird()).isEqualTo(6);
        assertThat(p.ord()).isEqualTo(9);
        a.finish();

        // One half at a time: Initiator IRD 0x3FFF -> our ORD stays, Reply ORD 0x3FFF; its ORD 8 is negotiated.
        Answered half = new Answered(ours, enhancedRequest(NO_NEGOTIATION, 8, new byte[0]));
        assertThat(ordHalf(half.reply)).isEqualTo(NO_NEGOTIATION);
        assertThat(irdHalf(half.reply)).isEqualTo(6);
        assertThat(success(half.handler).ord()).isEqualTo(9);
        half.finish();
    }

    @Test
    void mpa2R018_initiatorKeepsItsValuesOnAllOnesReply() {
        // MPA2-R-018: 0x3FFF in the Reply leaves the Initiator's values alone.
        // Responder IRD 0x3FFF -> our ORD unchanged; Responder ORD 0x3FFF -> our IRD unchanged and
        // no insufficient-IRD error although 0x3FFF > our IRD.
        Replied r = new Replied(MpaSettings.builder().ird(2).ord(7).build(),
                enhancedReply(NO_NEGOTIATION, NO_NEGOTIATION, new byte[0]));
        NegotiatedParameters p = success(r.handler);
        assertThat(p.ird()).isEqualTo(2);
        assertThat(p.ord()).isEqualTo(7);
        r.finish();
    }

    @Test
    void mpa2R015_wordC010C010DecodesTo16And16WithAllFlags() {
        // MPA2-R-015: the two top bits of each half are flags, masked off IRD and ORD.
        byte[] w = {(byte) 0xC0, 0x10, (byte) 0xC0, 0x10};
        Answered a = new Answered(DEFAULTS, request(C | S, 2, w));
        EnhancedConnectionData d = a.seen.enhancedData();
        assertThat(d.ird()).isEqualTo(16);
        assertThat(d.ord()).isEqualTo(16);
        assertThat(d.peerToPeer()).isTrue();
        assertThat(d.rtrTypes()).containsExactlyInAnyOrder(RtrType.SEND, RtrType.WRITE, RtrType.READ);
        assertThat(EnhancedConnectionData.decode(0xC010C010)).isEqualTo(d);
        assertThat(d.encode()).isEqualTo(0xC010C010);
        a.finish();
    }

    @Test
    void mpa2R016_initiatorHandsTheReplyPrivateDataToTheUlpWithoutTheWord() {
        // MPA2-R-016: the ULP gets the Reply's private data without the word.
        byte[] pd = TestVectors.bytes("V-CMPD-2");
        Replied r = new Replied(DEFAULTS, enhancedReply(16, 16, pd));
        assertThat(success(r.handler).peerPrivateData()).isEqualTo(pd);
        r.finish();
    }

    @Test
    void mpa2R016_responderUlpMayUseAll508Octets() {
        // MPA2-R-016: 512 - 4 octets for the ULP at Rev 2; PD_Length 512 on the wire.
        byte[] pd = new byte[508];
        Arrays.fill(pd, (byte) 0x5A);
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS,
                r -> CompletableFuture.completedFuture(MpaDecision.accept(pd)));
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ2")));
        byte[] rep = Wire.outbound(ch);
        assertThat(pdLength(rep)).isEqualTo(512);
        assertThat(Arrays.copyOfRange(rep, 24, rep.length)).isEqualTo(pd);
        success(responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpa2R017_peerIrdAndOrdReachTheUlp() {
        // MPA2-R-017: the peer's IRD and ORD reach the ULP.
        // Responder: the request's word in the connect request and in the outcome.
        Answered a = new Answered(DEFAULTS, enhancedRequest(A | 3, CW | 5, new byte[0]));
        EnhancedConnectionData fromInitiator = new EnhancedConnectionData(true, Set.of(RtrType.WRITE), 3, 5);
        assertThat(a.seen.enhancedData()).isEqualTo(fromInitiator);
        assertThat(success(a.handler).peerEnhancedData()).isEqualTo(fromInitiator);
        a.finish();

        // Initiator, accept: the Reply's word.
        Replied accepted = new Replied(DEFAULTS, enhancedReply(7, 9, new byte[0]));
        assertThat(success(accepted.handler).peerEnhancedData())
                .isEqualTo(new EnhancedConnectionData(false, Set.of(), 7, 9));
        accepted.finish();

        // Initiator, reject: the Reply's word too (RFC 6581 §9.1 "for both MPA Accept and Reject").
        Replied rejected = new Replied(DEFAULTS, reply(C | R | S, 2, Wire.concat(word(1, 32), ascii("no"))));
        MpaRejectedException e = (MpaRejectedException) failure(rejected.handler);
        assertThat(e.byPeer()).isTrue();
        assertThat(e.enhancedData()).isEqualTo(new EnhancedConnectionData(false, Set.of(), 1, 32));
        assertThat(e.ulpPrivateData()).isEqualTo(ascii("no"));
        assertThat(rejected.ch.isOpen()).isTrue();
        rejected.finish();
    }

    // ------------------------------------------------------------------ peer-to-peer, RTR

    @Test
    void mpa2R008_initiatorSetsAAndEveryRtrOptionItSupports() {
        // MPA2-R-008: the Initiator sets A and every RTR option it supports.
        EmbeddedChannel ch = channel(MpaStartupHandler.initiator(MpaSettings.builder().peerToPeer(true)
                .rtrTypes(EnumSet.allOf(RtrType.class)).ird(1).ord(2).build()));
        byte[] req = Wire.outbound(ch);
        assertThat(irdHalf(req)).isEqualTo(A | B | 1);
        assertThat(ordHalf(req)).isEqualTo(CW | D | 2);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void mpa2R008_responderEchoesAAndListsOfferedOptionsItSupports() {
        // MPA2-R-008: the Responder echoes A and lists the offered options it supports.
        Answered a = new Answered(DEFAULTS, enhancedRequest(A | 16, CW | D | 16, new byte[0]));
        assertThat(irdHalf(a.reply) & A).isEqualTo(A);
        assertThat(irdHalf(a.reply) & B).as("Send RTR not supported here").isZero();
        assertThat(ordHalf(a.reply) & (CW | D)).isNotZero();
        assertThat(success(a.handler).peerToPeer()).isTrue();
        a.finish();
    }

    @Test
    void mpa2R008_responderListsOneOfItsOwnWhenNoOfferedOptionFits() {
        // MPA2-R-008: the Responder lists one of its own when no offered option fits.
        // Offered only B (Send), which we cannot take: MUST set at least one option we support.
        Answered a = new Answered(DEFAULTS, enhancedRequest(A | B | 16, 16, new byte[0]));
        assertThat(irdHalf(a.reply) & A).isEqualTo(A);
        assertThat(irdHalf(a.reply) & B).isZero();
        assertThat(ordHalf(a.reply) & (CW | D)).isNotZero();
        a.finish();
    }

    @Test
    void mpa2R020_responderWithNoConfiguredRtrStillSupportsOne() {
        // MPA2-R-020: a Responder configured with no RTR type still supports one.
        Answered a = new Answered(MpaSettings.builder().rtrTypes(Set.of()).build(),
                enhancedRequest(A | 16, CW | D | 16, new byte[0]));
        assertThat((irdHalf(a.reply) & B) | (ordHalf(a.reply) & (CW | D))).isNotZero();
        a.finish();
    }

    @Test
    void mpa2R008_initiatorPicksOneOfSeveralOptions() {
        // MPA2-R-008: the Initiator picks one of several options.
        // All three listed; we send Write or Read, never Send: Write (no buffer, no IRD slot) is chosen.
        Replied r = new Replied(P2P, enhancedReply(A | B | 16, CW | D | 16, new byte[0]));
        NegotiatedParameters p = success(r.handler);
        assertThat(p.peerToPeer()).isTrue();
        assertThat(p.rtr()).isEqualTo(RtrType.WRITE);
        r.finish();

        Replied readOnly = new Replied(P2P.toBuilder().rtrTypes(Set.of(RtrType.READ)).build(),
                enhancedReply(A | 16, CW | D | 16, new byte[0]));
        assertThat(success(readOnly.handler).rtr()).isEqualTo(RtrType.READ);
        readOnly.finish();
    }

    @Test
    void preferredRtrIsChosenAmongSeveralTheReplyNames() {
        // A Reply naming Write and Read (as Marvell's qed may): our default is Write; with
        // preferredRtr(READ) the Read RTR. The Request still offers both (C and D).
        MpaSettings preferRead = P2P.toBuilder().preferredRtr(RtrType.READ).build();
        Replied r = new Replied(preferRead, enhancedReply(A | 16, CW | D | 16, new byte[0]));
        Replied plain = new Replied(P2P, enhancedReply(A | 16, CW | D | 16, new byte[0]));
        assertThat(r.request).isEqualTo(plain.request);
        assertThat(success(r.handler).rtr()).isEqualTo(RtrType.READ);
        assertThat(success(plain.handler).rtr()).isEqualTo(RtrType.WRITE);
        r.finish();
        plain.finish();
    }

    @Test
    void preferredRtrNeverOverridesWhatTheReplyAllows() {
        // softiwarp#20: only an RTR the Reply names. Reply names Write only -> Write despite READ.
        MpaSettings preferRead = P2P.toBuilder().preferredRtr(RtrType.READ).build();
        Replied writeOnly = new Replied(preferRead, enhancedReply(A | 16, CW | 16, new byte[0]));
        assertThat(success(writeOnly.handler).rtr()).isEqualTo(RtrType.WRITE);
        writeOnly.finish();
        // Reply names both but IRD 0: no Read is possible -> Write.
        Replied noIrd = new Replied(preferRead, enhancedReply(A, CW | D | 16, new byte[0]));
        assertThat(success(noIrd.handler).rtr()).isEqualTo(RtrType.WRITE);
        noIrd.finish();
    }

    @Test
    void mpa2R010_unrequestedExtraOptionIsNotAnError() {
        // MPA2-R-010: an extra option we did not offer is not an error.
        Replied r = new Replied(P2P.toBuilder().rtrTypes(Set.of(RtrType.WRITE)).build(),
                enhancedReply(A | B | 16, CW | 16, new byte[0]));
        assertThat(success(r.handler).rtr()).isEqualTo(RtrType.WRITE);
        r.finish();
    }

    @Test
    void mpa2R010_onlyASendRtrWeCannotGenerateIsNoMatchingRtr() {
        // MPA2-R-010: Reply A=1 with only B; we send Write/Read only -> code 7, Terminate by the ULP.
        Replied r = new Replied(P2P, enhancedReply(A | B | 16, 16, new byte[0]));
        MpaException e = assertTerminateRequired(r, MpaError.NO_MATCHING_RTR);
        assertThat(e.error().code()).isEqualTo(7);
        r.finish();
    }

    @Test
    void mpa2R010_replyWithANoOptionIsNoMatchingRtr() {
        // MPA2-R-010: a Reply with A and no option is "no matching RTR" (code 7).
        Replied r = new Replied(P2P, enhancedReply(A | 16, 16, new byte[0]));
        assertTerminateRequired(r, MpaError.NO_MATCHING_RTR);
        r.finish();
    }

    @Test
    void mpa2R010_replyWithoutAToAPeerToPeerRequestIsNoMatchingRtr() {
        // MPA2-R-010: a Reply without A to a peer-to-peer Request is "no matching RTR" (code 7).
        // RFC 6581 §9.2: the Responder MUST echo A=1; without it no connection model was agreed.
        Replied r = new Replied(P2P, enhancedReply(16, CW | 16, new byte[0]));
        assertTerminateRequired(r, MpaError.NO_MATCHING_RTR);
        r.finish();
    }

    @Test
    void mpa2R010_readRtrToAResponderWithIrdZeroCannotBeSent() {
        // MPA2-R-010: a Read RTR to a Responder with IRD 0 cannot be sent.
        // Responder IRD 0 leaves us ORD 0: a zero-length Read Request would still need a slot.
        Replied r = new Replied(P2P, enhancedReply(A, D | 16, new byte[0]));
        assertTerminateRequired(r, MpaError.NO_MATCHING_RTR);
        r.finish();
    }

    @Test
    void mpa2R011_responderWaitsForTheReadRtr() {
        // MPA2-R-011: peer-to-peer does not lift the fence: the Responder's ULPDU waits for the RTR
        // (here the zero-length Read Request V-RTR-2), which MPA hands up like any ULPDU.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(enhancedRequest(A | 16, D | 16, new byte[0])));
        Wire.outbound(ch);
        assertThat(success(responder).peerToPeer()).isTrue();
        ChannelFuture send = write(ch, ulpdu("V-FPDU-1"));
        assertThat(Wire.outbound(ch)).isEmpty();
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-RTR-2")));
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-RTR-2"));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-1"));
        assertThat(send.isSuccess()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpa2R019_clientServerRequestGetsAZeroFlagReplyAndNoRtr() {
        // MPA2-R-019: A=0 with B=C=D=1 in the Request -> flags ignored, Reply A=B=C=D=0.
        Answered a = new Answered(DEFAULTS, enhancedRequest(B | 16, CW | D | 16, new byte[0]));
        assertThat(irdHalf(a.reply) & (A | B)).isZero();
        assertThat(ordHalf(a.reply) & (CW | D)).isZero();
        assertThat(success(a.handler).peerToPeer()).isFalse();
        a.finish();
    }

    @Test
    void mpa2R019_initiatorSendsNoRtrFlagsInClientServerAndIgnoresThemInTheReply() {
        // MPA2-R-019: client-server: no RTR flags in the Request, and the Reply's are ignored.
        Replied r = new Replied(MpaSettings.builder().peerToPeer(false)
                .rtrTypes(EnumSet.allOf(RtrType.class)).build(), enhancedReply(B | 16, CW | D | 16, new byte[0]));
        assertThat(irdHalf(r.request) & (A | B)).isZero();
        assertThat(ordHalf(r.request) & (CW | D)).isZero();
        NegotiatedParameters p = success(r.handler);
        assertThat(p.peerToPeer()).isFalse();
        assertThat(p.rtr()).isNull();
        r.finish();
    }

    @Test
    void mpa2R024_peerToPeerIsAPerConnectionChoice() {
        // MPA2-R-024: the same defaults with and without the peer-to-peer flag.
        EmbeddedChannel off = channel(MpaStartupHandler.initiator(DEFAULTS));
        EmbeddedChannel on = channel(MpaStartupHandler.initiator(DEFAULTS.toBuilder().peerToPeer(true).build()));
        assertThat(irdHalf(Wire.outbound(off)) & A).isZero();
        assertThat(irdHalf(Wire.outbound(on)) & A).isEqualTo(A);
        assertThat(off.finishAndReleaseAll()).isFalse();
        assertThat(on.finishAndReleaseAll()).isFalse();
    }

    // ------------------------------------------------------------------ fuzz

    @Test
    void mpa2R023_responderSanityChecksAnyWord() {
        // MPA2-R-023: any 32-bit word gives a well-formed enhanced Reply that follows §9.1 / §9.2.
        Random random = new Random(6581);
        IntStream.concat(IntStream.of(0, -1, 0x3FFF3FFF, 0xC000C000, 0x80000000, 0x0000C000, 0x7FFF7FFF),
                random.ints(400)).forEach(w -> {
            int reqIrdHalf = w >>> 16;
            int reqOrdHalf = w & 0xFFFF;
            boolean p2p = (reqIrdHalf & A) != 0;
            Answered a = new Answered(DEFAULTS, request(C | S, 2, word(reqIrdHalf, reqOrdHalf)));
            String what = String.format("word %08x", w);
            assertThat(key(a.reply)).as(what).isEqualTo(REPLY_KEY);
            assertThat(flags(a.reply)).as(what).isEqualTo(C | S);
            assertThat(revision(a.reply)).as(what).isEqualTo(2);
            assertThat(pdLength(a.reply)).as(what).isEqualTo(4);
            int ird = irdHalf(a.reply);
            int ord = ordHalf(a.reply);
            assertThat(ird & A).as(what).isEqualTo(p2p ? A : 0);
            int options = (ird & B) | (ord & (CW | D));
            if (p2p) {
                assertThat(options).as(what).isNotZero();
            } else {
                assertThat(options).as(what).isZero();
            }
            if ((reqIrdHalf & NO_NEGOTIATION) == NO_NEGOTIATION) {
                assertThat(ord & NO_NEGOTIATION).as(what).isEqualTo(NO_NEGOTIATION);
            } else {
                assertThat(ord & NO_NEGOTIATION).as(what).isLessThanOrEqualTo(reqIrdHalf & NO_NEGOTIATION);
            }
            if ((reqOrdHalf & NO_NEGOTIATION) == NO_NEGOTIATION) {
                assertThat(ird & NO_NEGOTIATION).as(what).isEqualTo(NO_NEGOTIATION);
            }
            NegotiatedParameters p = success(a.handler);
            assertThat(p.ird()).as(what).isLessThanOrEqualTo(Math.max(DEFAULTS.ird(), 1));
            assertThat(p.ord()).as(what).isLessThanOrEqualTo(DEFAULTS.ord());
            assertThat(a.ch.isOpen()).isTrue();
            a.finish();
        });
    }

    @Test
    void mpa2R023_initiatorSanityChecksAnyWord() {
        // MPA2-R-023: any Reply word ends in success or in a Terminate-worthy setup error, never in
        // an exception from the pipeline; the outcome follows §9.1 / §9.2.
        Random random = new Random(5044);
        int[] edge = {0, -1, 0x3FFF3FFF, 0xC000C000, 0x80000000, 0x0000C000, 0x7FFF7FFF, 0x80004010, 0x80008011};
        int[] words = IntStream.concat(IntStream.of(edge), random.ints(400)).toArray();
        for (int i = 0; i < words.length; i++) {
            int w = words[i];
            boolean p2p = i % 2 == 0;
            MpaSettings settings = p2p ? P2P : DEFAULTS;
            int repIrdHalf = w >>> 16;
            int repOrdHalf = w & 0xFFFF;
            int repIrd = repIrdHalf & NO_NEGOTIATION;
            int repOrd = repOrdHalf & NO_NEGOTIATION;
            Replied r = new Replied(settings, enhancedReply(repIrdHalf, repOrdHalf, new byte[0]));
            String what = String.format("word %08x, %s", w, p2p ? "peer-to-peer" : "client-server");

            MpaError expected = null;
            RtrType rtr = null;
            if (repOrd != NO_NEGOTIATION && repOrd > settings.ird()) {
                expected = MpaError.INSUFFICIENT_IRD;
            } else if (p2p) {
                boolean a = (repIrdHalf & A) != 0;
                if (a && (repOrdHalf & CW) != 0) {
                    rtr = RtrType.WRITE;
                } else if (a && (repOrdHalf & D) != 0 && repIrd > 0) {
                    rtr = RtrType.READ;
                } else {
                    expected = MpaError.NO_MATCHING_RTR;
                }
            }
            assertThat(r.ch.isOpen()).as(what).isTrue();
            assertFullOperation(r.ch);
            if (expected == null) {
                NegotiatedParameters p = success(r.handler);
                assertThat(p.rtr()).as(what).isEqualTo(rtr);
                assertThat(p.ord()).as(what).isEqualTo(repIrd == NO_NEGOTIATION
                        ? settings.ord() : Math.min(settings.ord(), repIrd));
                assertThat(p.ird()).as(what).isEqualTo(settings.ird());
            } else {
                MpaException e = failure(r.handler);
                assertThat(e.error()).as(what).isEqualTo(expected);
                assertThat(e.terminateRequired()).as(what).isTrue();
            }
            r.finish();
        }
    }
}
