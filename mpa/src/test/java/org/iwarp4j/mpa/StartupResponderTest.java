package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.mpa.MpaStartupFixtures.C;
import static org.iwarp4j.mpa.MpaStartupFixtures.KEY_DIFFERS_AT;
import static org.iwarp4j.mpa.MpaStartupFixtures.R;
import static org.iwarp4j.mpa.MpaStartupFixtures.REPLY_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.REQUEST_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.TIMEOUT;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertExitedMpa;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertFullOperation;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertInvalidFrame;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertStillStarting;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.elapse;
import static org.iwarp4j.mpa.MpaStartupFixtures.failure;
import static org.iwarp4j.mpa.MpaStartupFixtures.flags;
import static org.iwarp4j.mpa.MpaStartupFixtures.header;
import static org.iwarp4j.mpa.MpaStartupFixtures.key;
import static org.iwarp4j.mpa.MpaStartupFixtures.pdLength;
import static org.iwarp4j.mpa.MpaStartupFixtures.privateData;
import static org.iwarp4j.mpa.MpaStartupFixtures.request;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;
import static org.iwarp4j.mpa.MpaStartupFixtures.ulpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.write;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 5044 §7.1 startup, Responder side (our handler receives the Request and sends the Reply). */
class StartupResponderTest {

    private static final MpaSettings DEFAULTS = MpaSettings.builder().build();

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A Responder that counts how often its ULP is asked and then accepts. */
    private static final class Counting implements ConnectRequestHandler {
        final AtomicInteger calls = new AtomicInteger();
        MpaConnectRequest last;

        @Override
        public CompletableFuture<MpaDecision> onConnectRequest(MpaConnectRequest request) {
            calls.incrementAndGet();
            last = request;
            return CompletableFuture.completedFuture(MpaDecision.accept());
        }
    }

    private static void assertClosedWithoutReply(EmbeddedChannel ch, MpaStartupHandler responder) {
        assertThat(ch.isOpen()).as("connection closed at once (MPA-R-072)").isFalse();
        assertThat(Wire.outbound(ch)).as("no Reply").isEmpty();
        assertInvalidFrame(responder);
    }

    // ------------------------------------------------------------------ keys

    @Test
    void mpaR044_replyKeyWhereARequestIsExpectedClosesWithErrorFour() {
        // MPA-R-044 / MPA-R-062 / MPA-R-072: `MPA ID Rep Frame` to our Responder -> closed, code 4, no Reply.
        Counting ulp = new Counting();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ulp);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = channel(responder, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        assertClosedWithoutReply(ch, responder);
        assertThat(ulp.calls).hasValue(0);
        // The same error reaches the ULP as the startup event.
        assertThat(probe.only().isSuccess()).isFalse();
        assertThat(probe.only().cause()).isSameAs(failure(responder));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR044_requestKeyWithLastOctetWrongClosesWithErrorFour() {
        // MPA-R-044: `MPA ID Req Framf`.
        byte[] bad = TestVectors.bytes("V-MPA-REQ1");
        bad[15] = 'f';
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(bad));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR072_wrongKeyOctetClosesBeforeTheRestOfTheFrameArrives() {
        // MPA-R-072: code 4 closes immediately; the Reply key's 'p' (octet 10) already proves the
        // frame invalid, so the Responder does not wait for the other 10 octets of the header.
        assertThat(KEY_DIFFERS_AT).isEqualTo(9);
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Arrays.copyOf(REQUEST_KEY, KEY_DIFFERS_AT)));
        assertStillStarting(ch, responder);
        ch.writeInbound(Wire.buf(new byte[] {REPLY_KEY[KEY_DIFFERS_AT]}));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR054_streamingOctetsBeforeTheRequestAreReadAsTheRequest() {
        // MPA-R-054 / MPA-R-041: octets that are not a Request are not skipped or parsed as FPDUs:
        // they are the would-be Request, whose key is wrong -> close.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Wire.concat(ascii("HELLO\r\n"), TestVectors.bytes("V-MPA-REQ1"))));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ byte 16 and Rev

    @Test
    void mpaR048_requestWithRejectBitSetIsStillAccepted() {
        // MPA-R-048: R is 0 in a Request and not checked there.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(C | R, 1, new byte[0])));
        byte[] reply = Wire.outbound(ch);
        assertThat(reply).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(flags(reply) & R).isZero();
        success(responder);
        assertFullOperation(ch);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR049_reservedBitsAllOnesAtRevision1AreNotChecked() {
        // MPA-R-049: byte 16 = 0x5F (C and all five Res bits) at Rev 1 -> accepted; at Rev 1 bit
        // 0x10 is still Res, not RFC 6581's S, so the private data is the ULP's, unchanged (MPA2-R-014).
        byte[] pd = ascii("abcdefgh");
        Counting ulp = new Counting();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ulp);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(0x5F, 1, pd)));
        byte[] reply = Wire.outbound(ch);
        assertThat(reply).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(flags(reply) & 0x1F).as("Res bits 0 on send").isZero();
        assertThat(ulp.last.ulpPrivateData()).isEqualTo(pd);
        assertThat(ulp.last.enhancedData()).isNull();
        NegotiatedParameters p = success(responder);
        assertThat(p.peerPrivateData()).isEqualTo(pd);
        assertThat(p.revision()).isEqualTo(1);
        assertThat(p.crc()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    @ParameterizedTest(name = "Rev {0}")
    @ValueSource(ints = {0, 3, 0xFF})
    void mpaR050_unsupportedRevisionClosesWithErrorFour(int rev) {
        // MPA-R-050: a revision we cannot interoperate with -> close and report locally.
        // Rev 0 is the pre-IETF RDMAC MPA (MPA-R-079): refused, no permissive mode.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(request(C, rev, new byte[0])));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR050_revision1IsReportedToTheUlp() {
        // MPA-R-050 / MPA-R-009: Rev 1 proceeds and the ULP is told 1, both in the request and in the outcome.
        Counting ulp = new Counting();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ulp);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        Wire.outbound(ch);
        assertThat(ulp.last.frame().revision()).isEqualTo(1);
        assertThat(success(responder).revision()).isEqualTo(1);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ PD_Length

    @Test
    void mpaR051_pdLength513ClosesWithErrorFour() {
        // MPA-R-051: over 512 -> close, as soon as the header is there.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(header(REQUEST_KEY, C, 1, 513)));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR066_pdLengthOverTheApplicationLimitClosesWithErrorFour() {
        // MPA-R-066: PD_Length 512 with a 256-octet application buffer -> badly formatted, close.
        MpaSettings limited = MpaSettings.builder().maxPeerPrivateData(256).build();
        MpaStartupHandler responder = MpaStartupHandler.responder(limited, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(header(REQUEST_KEY, C, 1, 512)));
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR066_pdLengthFuzzAgainstA256OctetLimit() {
        // MPA-R-066: every PD_Length 0..1024 and a spread up to 65535: above the limit -> code 4 and
        // closed as soon as the header is in; at or below it -> exactly PD_Length octets are taken.
        MpaSettings limited = MpaSettings.builder().maxPeerPrivateData(256).build();
        IntStream lengths = IntStream.concat(IntStream.rangeClosed(0, 1024),
                IntStream.concat(IntStream.iterate(1031, n -> n <= 65535, n -> n + 509), IntStream.of(65535)));
        lengths.forEach(n -> {
            Counting ulp = new Counting();
            MpaStartupHandler responder = MpaStartupHandler.responder(limited, ulp);
            EmbeddedChannel ch = channel(responder);
            ch.writeInbound(Wire.buf(header(REQUEST_KEY, C, 1, n)));
            if (n > 256) {
                assertThat(ch.isOpen()).as("PD_Length %d", n).isFalse();
                assertInvalidFrame(responder);
                assertThat(Wire.outbound(ch)).isEmpty();
            } else {
                byte[] pd = new byte[n];
                Arrays.fill(pd, (byte) n);
                if (n > 0) {
                    assertStillStarting(ch, responder);
                    ch.writeInbound(Wire.buf(pd));
                }
                assertThat(ulp.last.ulpPrivateData()).as("PD_Length %d", n).isEqualTo(pd);
                assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
                assertThat(success(responder).peerPrivateData()).isEqualTo(pd);
            }
            assertThat(ch.finish()).isFalse();
        });
    }

    @Test
    void mpaR051_pdLength10With4OctetsThenCloseIsInvalidFrame() {
        // MPA-R-051 / MPA-R-055: PD_Length disagrees with what arrives before the connection ends.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Wire.concat(header(REQUEST_KEY, C, 1, 10), new byte[4])));
        assertStillStarting(ch, responder);
        ch.close();
        assertInvalidFrame(responder);
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR051_pdLength10With4OctetsThenFinClosesWithErrorFour() {
        // MPA-R-051 / MPA-R-072 with half-closure allowed: the peer's FIN arrives as an input
        // shutdown while the channel stays open. The frame can never be completed -> code 4 and
        // close at once, not after the startup timeout.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Wire.concat(header(REQUEST_KEY, C, 1, 10), new byte[4])));
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertClosedWithoutReply(ch, responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR055_requestCutShortByCloseIsInvalidFrame() {
        // MPA-R-055: a short Request (12 octets of key) then the end of the connection -> code 4.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Arrays.copyOf(REQUEST_KEY, 12)));
        assertStillStarting(ch, responder);
        ch.close();
        assertInvalidFrame(responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void connectionClosedBeforeAnyOctetIsErrorOne() {
        // RFC 5044 §8 code 1 (TCP connection closed), not code 4: nothing malformed was received.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.close();
        MpaException e = failure(responder);
        assertThat(e.error()).isEqualTo(MpaError.CONNECTION_LOST);
        assertThat(e.error().code()).isEqualTo(1);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ decision

    @Test
    void mpaR056_ulpRejectSendsReplyWithRAndItsPrivateDataAndLeavesTcpOpen() {
        // MPA-R-056: Reply with R=1 carrying the ULP's private data; MPA exits; TCP stays open.
        byte[] why = ascii("no thanks");
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS,
                request -> CompletableFuture.completedFuture(MpaDecision.reject(why, "test says no")));
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = channel(responder, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        byte[] reply = Wire.outbound(ch);
        assertThat(key(reply)).isEqualTo(REPLY_KEY);
        assertThat(flags(reply) & R).isEqualTo(R);
        assertThat(MpaStartupFixtures.revision(reply)).isEqualTo(1);
        assertThat(privateData(reply)).isEqualTo(why);
        assertThat(pdLength(reply)).isEqualTo(why.length);

        assertThat(ch.isOpen()).isTrue();
        assertExitedMpa(ch);
        MpaException e = failure(responder);
        assertThat(e).isInstanceOf(MpaRejectedException.class);
        MpaRejectedException rejected = (MpaRejectedException) e;
        assertThat(rejected.byPeer()).isFalse();
        assertThat(rejected.ulpPrivateData()).isEqualTo(why);
        assertThat(rejected.reply().reject()).isTrue();
        assertThat(rejected.terminateRequired()).isFalse();
        assertThat(probe.only().cause()).isSameAs(e);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR063_ulpChecksThePrivateDataAndRejectsWhatItCannotUse() {
        // MPA-R-063: the Responder ULP sees the Initiator's private data and SHOULD reject with R=1.
        ConnectRequestHandler ulp = request -> CompletableFuture.completedFuture(
                Arrays.equals(request.ulpPrivateData(), ascii("v1"))
                        ? MpaDecision.accept(ascii("ok")) : MpaDecision.reject(ascii("want v1"), "bad version"));
        for (String version : new String[] {"v1", "v9"}) {
            MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ulp);
            EmbeddedChannel ch = channel(responder);
            ch.writeInbound(Wire.buf(request(C, 1, ascii(version))));
            byte[] reply = Wire.outbound(ch);
            boolean accepted = version.equals("v1");
            assertThat(flags(reply) & R).isEqualTo(accepted ? 0 : R);
            assertThat(privateData(reply)).isEqualTo(ascii(accepted ? "ok" : "want v1"));
            assertThat(responder.startup().isCompletedExceptionally()).isEqualTo(!accepted);
            assertThat(ch.isOpen()).isTrue();
            assertThat(ch.finish()).isFalse();
        }
    }

    @Test
    void mpaR057_acceptSendsReplyWithRClearAndInstallsTheFraming() {
        // MPA-R-057: Reply with R=0 and ready to read FPDUs; MPA-R-041 / MPA-R-042 both directions'
        // framing enters at once.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = channel(responder, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertThat(flags(Wire.outbound(ch)) & R).isZero();
        assertFullOperation(ch);
        NegotiatedParameters p = success(responder);
        assertThat(p.role()).isEqualTo(MpaRole.RESPONDER);
        assertThat(probe.only().parameters()).isSameAs(p);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-RTR-1")));
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-RTR-1"));
        assertThat(probe.order).containsExactly("event", "read");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR057_ulpPrivateDataInTheAcceptReply() {
        // MPA-R-057: the accepting Reply MAY carry private data, here the decision's (over the settings').
        byte[] pd = ascii("accept-pd");
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().privateData(ascii("settings-pd")).build(),
                request -> CompletableFuture.completedFuture(MpaDecision.accept(pd)));
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        byte[] reply = Wire.outbound(ch);
        assertThat(reply).isEqualTo(MpaStartupFixtures.reply(C, 1, pd));
        success(responder);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void octetsCoalescedWithTheRequestCloseWithErrorFour() {
        // RFC 5044 §7.1.2 #3 / MPA-R-051: the Initiator may send nothing before it has the Reply, so
        // octets behind the Request (here in the same read) make the exchange invalid; the ULP is
        // not even asked.
        Counting ulp = new Counting();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ulp);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Wire.concat(TestVectors.bytes("V-MPA-REQ1"), TestVectors.bytes("V-RTR-1"))));
        assertClosedWithoutReply(ch, responder);
        assertThat(ulp.calls).hasValue(0);
        assertThat(Wire.inbound(ch)).as("nothing delivered as a ULPDU").isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void octetsArrivingWhileTheUlpDecidesCloseWithErrorFour() {
        // RFC 5044 §7.1.2 #3: octets after the Request and before the Reply -> close; a decision
        // that comes afterwards sends nothing.
        CompletableFuture<MpaDecision> decision = new CompletableFuture<>();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, request -> decision);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertStillStarting(ch, responder);
        ch.writeInbound(Wire.buf(new byte[] {0, 14, 0, 0}));
        assertClosedWithoutReply(ch, responder);
        decision.complete(MpaDecision.accept());
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void failingUlpDecisionClosesWithLocalCatastrophic() {
        // RFC 6581 §9.3 (MPA2-R-021): a local error with no specific code is code 5. Before the
        // Reply the peer is not in Full Operation, so no Terminate can be sent: the connection is closed.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS,
                request -> CompletableFuture.failedFuture(new IllegalStateException("ULP broke")));
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertThat(ch.isOpen()).isFalse();
        assertThat(Wire.outbound(ch)).isEmpty();
        MpaException e = failure(responder);
        assertThat(e.error()).isEqualTo(MpaError.LOCAL_CATASTROPHIC);
        assertThat(e.getCause()).hasMessage("ULP broke");
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ fence

    @Test
    void mpaR061_responderSendsNoFpduBeforeTheInitiatorsFirstFpduIsValidated() {
        // MPA-R-061 / MPA2-R-011: the ULP writes right after accept; nothing but the Reply reaches
        // the wire until a whole, valid FPDU from the Initiator has been received.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REP1"));

        ChannelFuture send = write(ch, ulpdu("V-FPDU-5"));
        assertThat(Wire.outbound(ch)).as("fenced").isEmpty();
        assertThat(send).isNotDone();

        byte[] first = TestVectors.bytes("V-RTR-1");
        ch.writeInbound(Wire.buf(Arrays.copyOf(first, 10)));
        assertThat(Wire.outbound(ch)).as("half an FPDU is not a validated FPDU").isEmpty();

        ch.writeInbound(Wire.buf(Arrays.copyOfRange(first, 10, first.length)));
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-RTR-1"));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-5"));
        assertThat(send.isSuccess()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR061_anInvalidFirstFpduDoesNotOpenTheFence() {
        // MPA-R-061: "validated" — a first FPDU with a bad CRC (error 2) releases nothing.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        Wire.outbound(ch);
        ChannelFuture send = write(ch, ulpdu("V-FPDU-5"));
        assertThat(Wire.inboundError(ch, TestVectors.bytes("V-CRCOFF")).error()).isEqualTo(MpaError.CRC_ERROR);
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(send).isNotDone();
        assertThat(ch.finishAndReleaseAll()).isFalse();
        assertThat(send.isSuccess()).isFalse();
    }

    @Test
    void mpaR061_writesMadeBeforeStartupCompletesAreHeldThenSentAsFpdus() {
        // MPA-R-061: writes made before startup completes are held, then sent as FPDUs.
        // Writes made while the ULP decides are held by the startup handler, then by the fence,
        // and finally go out as FPDUs, in order.
        CompletableFuture<MpaDecision> decision = new CompletableFuture<>();
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, request -> decision);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        ChannelFuture first = write(ch, ulpdu("V-FPDU-5"));
        ChannelFuture second = write(ch, ulpdu("V-FPDU-7"));
        assertThat(Wire.outbound(ch)).isEmpty();

        decision.complete(MpaDecision.accept());
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(first).isNotDone();

        ch.writeInbound(Wire.buf(TestVectors.bytes("V-RTR-1")));
        assertThat(Wire.outbound(ch)).isEqualTo(
                Wire.concat(TestVectors.bytes("V-FPDU-5"), TestVectors.bytes("V-FPDU-7")));
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-RTR-1"));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void writeInReactionToTheStartupEventIsHeldByTheFenceNotFailed() {
        // The natural moment for a Responder ULP to write is the startup event: that write must be
        // fenced like any other (MPA-R-061) and go out after the Initiator's first FPDU.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe(e -> e.isSuccess() ? ulpdu("V-FPDU-5") : null);
        EmbeddedChannel ch = channel(responder, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REP1"));
        assertThat(probe.writes).hasSize(1);
        assertThat(probe.writes.get(0)).isNotDone();
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-RTR-1")));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-5"));
        assertThat(probe.writes.get(0).isSuccess()).isTrue();
        assertThat(Wire.inbound(ch)).hasSize(1);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ timeouts

    @Test
    void mpaR067_requestThatStallsAfter10OctetsTimesOut() {
        // MPA-R-067: the whole exchange is timed; a stalled Request is closed when the time is up,
        // not before.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel ch = channel(responder);
        ch.writeInbound(Wire.buf(Arrays.copyOf(TestVectors.bytes("V-MPA-REQ1"), 10)));
        elapse(ch, TIMEOUT.minusMillis(1));
        assertStillStarting(ch, responder);
        elapse(ch, Duration.ofMillis(1));
        assertThat(ch.isOpen()).isFalse();
        assertThat(failure(responder)).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR067_theUlpsDecisionCountsAgainstTheStartupTimeout() {
        // MPA-R-067: a ULP that never decides does not hold the connection open forever; a late
        // decision sends nothing.
        CompletableFuture<MpaDecision> decision = new CompletableFuture<>();
        Duration timeout = Duration.ofSeconds(3);
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().startupTimeout(timeout).build(), request -> decision);
        EmbeddedChannel ch = channel(responder);
        ChannelFuture held = write(ch, ulpdu("V-FPDU-5"));
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        elapse(ch, timeout);
        assertThat(ch.isOpen()).isFalse();
        MpaException e = failure(responder);
        assertThat(e).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(held.cause()).isSameAs(e);
        decision.complete(MpaDecision.accept());
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR065_responderThatNeverGetsARequestTimesOut() {
        // MPA-R-065: a Responder connected to another Responder hears nothing and SHOULD time out.
        MpaStartupHandler responder = MpaStartupHandler.responder(DEFAULTS, ConnectRequestHandler.ACCEPT_ALL);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = channel(responder, probe);
        elapse(ch, TIMEOUT);
        assertThat(ch.isOpen()).isFalse();
        MpaException e = failure(responder);
        assertThat(e).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(e.error()).isNull();
        assertThat(probe.only().cause()).isSameAs(e);
        assertThat(ch.finish()).isFalse();
    }
}
