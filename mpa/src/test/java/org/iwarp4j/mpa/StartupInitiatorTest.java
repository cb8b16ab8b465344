package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.mpa.MpaStartupFixtures.C;
import static org.iwarp4j.mpa.MpaStartupFixtures.KEY_DIFFERS_AT;
import static org.iwarp4j.mpa.MpaStartupFixtures.M;
import static org.iwarp4j.mpa.MpaStartupFixtures.R;
import static org.iwarp4j.mpa.MpaStartupFixtures.REPLY_KEY;
import static org.iwarp4j.mpa.MpaStartupFixtures.S;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertExitedMpa;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertFullOperation;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertInvalidFrame;
import static org.iwarp4j.mpa.MpaStartupFixtures.assertStillStarting;
import static org.iwarp4j.mpa.MpaStartupFixtures.channel;
import static org.iwarp4j.mpa.MpaStartupFixtures.elapse;
import static org.iwarp4j.mpa.MpaStartupFixtures.failure;
import static org.iwarp4j.mpa.MpaStartupFixtures.fpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.header;
import static org.iwarp4j.mpa.MpaStartupFixtures.reply;
import static org.iwarp4j.mpa.MpaStartupFixtures.success;
import static org.iwarp4j.mpa.MpaStartupFixtures.ulpdu;
import static org.iwarp4j.mpa.MpaStartupFixtures.word;
import static org.iwarp4j.mpa.MpaStartupFixtures.write;

import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 5044 §7.1 startup, Initiator side (our handler sends the Request and checks the Reply). */
class StartupInitiatorTest {

    private static final MpaSettings REV1 = MpaSettings.builder().revision(1).build();

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Our rev 1 Initiator, its Request already taken off the wire and checked. */
    private static EmbeddedChannel started(MpaStartupHandler initiator, io.netty.channel.ChannelHandler... more) {
        io.netty.channel.ChannelHandler[] all = new io.netty.channel.ChannelHandler[more.length + 1];
        all[0] = initiator;
        System.arraycopy(more, 0, all, 1, more.length);
        EmbeddedChannel ch = channel(all);
        byte[] request = Wire.outbound(ch);
        assertThat(Arrays.copyOf(request, 16)).isEqualTo(MpaStartupFixtures.REQUEST_KEY);
        return ch;
    }

    private static void assertClosed(EmbeddedChannel ch, MpaStartupHandler initiator) {
        assertThat(ch.isOpen()).as("connection closed at once (MPA-R-072)").isFalse();
        assertInvalidFrame(initiator);
        assertThat(Wire.outbound(ch)).isEmpty();
    }

    // ------------------------------------------------------------------ Request

    @Test
    void mpaR041_theRequestIsTheFirstAndOnlyThingSentBeforeTheReply() {
        // MPA-R-041 / MPA-R-053: MPA starts at the first octet of the stream; the Initiator sends
        // its Request on activation and nothing more until the Reply is in (MPA-R-080).
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = channel(initiator);
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-MPA-REQ1"));
        ChannelFuture early = write(ch, ulpdu("V-FPDU-5"));
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(early).isNotDone();
        assertStillStarting(ch, initiator);
        assertThat(ch.finishAndReleaseAll()).isFalse();
        assertThat(early.isSuccess()).isFalse();
    }

    // ------------------------------------------------------------------ keys

    @Test
    void mpaR045_requestKeyFromThePeerIsInitiatorInitiatorAndCloses() {
        // MPA-R-045 / MPA-R-065 / MPA-R-062: the peer sent a Request, so both ends are Initiators.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = started(initiator, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REQ1")));
        assertClosed(ch, initiator);
        assertThat(probe.only().cause()).isSameAs(failure(initiator));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR045_replyKeyWithLastOctetWrongCloses() {
        // MPA-R-045: `MPA ID Rep Framf`.
        byte[] bad = TestVectors.bytes("V-MPA-REP1");
        bad[15] = 'f';
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(bad));
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR072_wrongReplyKeyOctetClosesAtOnce() {
        // MPA-R-072: the first wrong key octet is enough; no need to wait for the header.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(Arrays.copyOf(REPLY_KEY, KEY_DIFFERS_AT)));
        assertStillStarting(ch, initiator);
        ch.writeInbound(Wire.buf(new byte[] {MpaStartupFixtures.REQUEST_KEY[KEY_DIFFERS_AT]}));
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ Rev, PD_Length

    @ParameterizedTest(name = "Rev {0}")
    @ValueSource(ints = {0, 3, 0xFF})
    void mpaR050_replyWithUnsupportedRevisionCloses(int rev) {
        // MPA-R-050: close and report locally.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(reply(C, rev, new byte[0])));
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR050_replyOfAHigherRevisionThanTheRequestCloses() {
        // MPA-R-050: a Rev 1 Initiator cannot interoperate with an enhanced Rev 2 Reply.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(reply(C | S, 2, word(16, 16))));
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR049_replyResBitsAreNotChecked() {
        // MPA-R-049 (Initiator side): Res bits 0x1F in an accepting Rev 1 Reply are ignored;
        // at Rev 1, 0x10 is not S, so the four octets are the ULP's private data.
        byte[] pd = ascii("wxyz");
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(reply(C | 0x1F, 1, pd)));
        NegotiatedParameters p = success(initiator);
        assertThat(p.peerPrivateData()).isEqualTo(pd);
        assertThat(p.peerEnhancedData()).isNull();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR009_negotiatedRevisionIsReported() {
        // MPA-R-009: DDP/RDMAP learn the revision: 1 after a Rev 1 Reply.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        assertThat(success(initiator).revision()).isEqualTo(1);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR051_replyPdLength513Closes() {
        // MPA-R-051: a Reply with PD_Length 513 closes.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(header(REPLY_KEY, C, 1, 513)));
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR066_replyPdLengthOverMaxPeerPrivateDataCloses() {
        // MPA-R-066: never accept more PD than the application buffer; at the limit it is accepted.
        MpaSettings limited = REV1.toBuilder().maxPeerPrivateData(100).build();
        MpaStartupHandler over = MpaStartupHandler.initiator(limited);
        EmbeddedChannel ch = started(over);
        ch.writeInbound(Wire.buf(header(REPLY_KEY, C, 1, 101)));
        assertClosed(ch, over);
        assertThat(ch.finish()).isFalse();

        MpaStartupHandler at = MpaStartupHandler.initiator(limited);
        EmbeddedChannel ok = started(at);
        ok.writeInbound(Wire.buf(reply(C, 1, new byte[100])));
        assertThat(success(at).peerPrivateData()).hasSize(100);
        assertThat(ok.finish()).isFalse();
    }

    @Test
    void mpaR051_octetsBehindTheReplyAreFpdusNotPrivateData() {
        // MPA-R-051: PD_Length 10, the 10 octets, then at once an FPDU in the same read: the PD is
        // exactly the 10 octets and the FPDU reaches DDP as a ULPDU (MPA-R-041: MPA switches at that
        // very octet). MPA-R-042: the startup event (binding DDP) precedes the first ULPDU.
        byte[] pd = ascii("0123456789");
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = started(initiator, probe);
        ch.writeInbound(Wire.buf(Wire.concat(reply(C, 1, pd), TestVectors.bytes("V-FPDU-1"))));
        assertThat(success(initiator).peerPrivateData()).isEqualTo(pd);
        assertThat(Wire.inbound(ch)).containsExactly(ulpdu("V-FPDU-1"));
        assertThat(probe.order).containsExactly("event", "read");
        assertFullOperation(ch);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR058_truncatedReplyThenCloseIsErrorFour() {
        // MPA-R-058: 12 octets of a Reply, then the connection ends -> code 4, connection closed.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(Arrays.copyOf(TestVectors.bytes("V-MPA-REP1"), 12)));
        assertStillStarting(ch, initiator);
        ch.close();
        assertThat(ch.isOpen()).isFalse();
        assertInvalidFrame(initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR058_replyPdLength10With4OctetsThenCloseIsErrorFour() {
        // MPA-R-051 / MPA-R-058: PD_Length says 10, 4 arrive, the connection ends.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(Wire.concat(header(REPLY_KEY, C, 1, 10), new byte[4])));
        assertStillStarting(ch, initiator);
        ch.close();
        assertInvalidFrame(initiator);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR058_truncatedReplyThenFinClosesWithErrorFour() {
        // MPA-R-058 / MPA-R-072 with half-closure: the FIN (input shutdown) ends any hope of the
        // rest of the Reply -> code 4 and the connection is closed at once.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(Arrays.copyOf(TestVectors.bytes("V-MPA-REP1"), 12)));
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertClosed(ch, initiator);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ R bit

    @Test
    void mpaR059_rejectReplyFailsWithItsPrivateDataAndLeavesTcpOpen() {
        // MPA-R-059: R=1 -> exit MPA, TCP left open, "rejected" + PD handed to the ULP; held writes fail.
        byte[] pd = ascii("busy, try later");
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = started(initiator, probe);
        ChannelFuture held = write(ch, ulpdu("V-FPDU-5"));
        ch.writeInbound(Wire.buf(reply(C | R, 1, pd)));
        MpaException e = failure(initiator);
        assertThat(e).isInstanceOf(MpaRejectedException.class);
        MpaRejectedException rejected = (MpaRejectedException) e;
        assertThat(rejected.byPeer()).isTrue();
        assertThat(rejected.ulpPrivateData()).isEqualTo(pd);
        assertThat(rejected.enhancedData()).isNull();
        assertThat(rejected.terminateRequired()).isFalse();
        assertThat(ch.isOpen()).isTrue();
        assertExitedMpa(ch);
        assertThat(held.cause()).isSameAs(e);
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(probe.only().cause()).isSameAs(e);
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ Full Operation

    @Test
    void mpaR060_acceptingReplyEntersFullOperationAndTheFirstFpduGoesOutAtOnce() {
        // MPA-R-060: R=0 -> Full Operation; the Initiator is not fenced (MPA-R-061 binds the Responder).
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe();
        EmbeddedChannel ch = started(initiator, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        NegotiatedParameters p = success(initiator);
        assertThat(p.role()).isEqualTo(MpaRole.INITIATOR);
        assertThat(probe.only().parameters()).isSameAs(p);
        assertFullOperation(ch);
        ChannelFuture send = write(ch, ulpdu("V-FPDU-5"));
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-5"));
        assertThat(send.isSuccess()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR060_writesMadeBeforeTheReplyAreHeldThenSentAsFpdusInOrder() {
        // MPA-R-060, MPA-R-080: writes made before the Reply are held, then sent as FPDUs in order.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ChannelFuture first = write(ch, ulpdu("V-FPDU-1"));
        ChannelFuture second = write(ch, ulpdu("V-FPDU-5"));
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(first).isNotDone();
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        assertThat(Wire.outbound(ch)).isEqualTo(
                Wire.concat(TestVectors.bytes("V-FPDU-1"), TestVectors.bytes("V-FPDU-5")));
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR060_writeInReactionToTheStartupEventIsSent() {
        // MPA-R-060: once in Full Operation the first FPDU may be sent. The ULP's natural moment is
        // the startup event (or the startup() future, which completes just before it).
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        MpaStartupFixtures.Probe probe = new MpaStartupFixtures.Probe(e -> e.isSuccess() ? ulpdu("V-FPDU-5") : null);
        EmbeddedChannel ch = started(initiator, probe);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        assertThat(probe.writes).hasSize(1);
        assertThat(probe.writes.get(0).isSuccess()).as("%s", probe.writes.get(0).cause()).isTrue();
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-5"));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR060_writeFromTheStartupFutureCallbackIsSent() {
        // MPA-R-060: a write from the startup future's callback is sent.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        AtomicReference<ChannelFuture> sent = new AtomicReference<>();
        initiator.startup().thenAccept(p -> sent.set(ch.writeAndFlush(Wire.buf(ulpdu("V-FPDU-5")))));
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        assertThat(sent.get()).isNotNull();
        assertThat(sent.get().isSuccess()).as("%s", sent.get().cause()).isTrue();
        assertThat(Wire.outbound(ch)).isEqualTo(TestVectors.bytes("V-FPDU-5"));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR064_firstOctetsOfFullOperationAreAMarkerThenTheLength() {
        // MPA-R-064: with markers toward the peer (Reply M=1) the first four octets after the
        // startup frames are the marker 00000000 (FPDUPTR 0), then ULPDU_Length.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(reply(M | C, 1, new byte[0])));
        assertThat(success(initiator).markersToPeer()).isTrue();
        write(ch, ulpdu("V-FPDU-5"));
        byte[] out = Wire.outbound(ch);
        assertThat(Arrays.copyOf(out, 6)).containsExactly(0, 0, 0, 0, 0, 17);
        assertThat(out).isEqualTo(fpdu(ulpdu("V-FPDU-5"), true, true));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR064_withoutMarkersTheFirstOctetsAreTheLength() {
        // MPA-R-064: without markers the first octets are ULPDU_Length.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        ch.writeInbound(Wire.buf(TestVectors.bytes("V-MPA-REP1")));
        write(ch, ulpdu("V-FPDU-5"));
        byte[] out = Wire.outbound(ch);
        assertThat(Arrays.copyOf(out, 2)).containsExactly(0, 17);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void mpaR063_initiatorUlpMayCloseAfterCheckingThePrivateData() {
        // MPA-R-063: startup completes with the Responder's PD; the ULP closes; nothing else is sent.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1);
        EmbeddedChannel ch = started(initiator);
        initiator.startup().thenAccept(p -> {
            if (!Arrays.equals(p.peerPrivateData(), ascii("ok"))) {
                ch.close();
            }
        });
        ch.writeInbound(Wire.buf(reply(C, 1, ascii("not ok"))));
        assertThat(ch.isOpen()).isFalse();
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    // ------------------------------------------------------------------ timeout

    @Test
    void mpaR067_initiatorWithoutReplyTimesOut() {
        // MPA-R-067: no Reply within the startup timeout -> closed; held writes fail with the same error.
        Duration timeout = Duration.ofMillis(2500);
        MpaStartupHandler initiator = MpaStartupHandler.initiator(REV1.toBuilder().startupTimeout(timeout).build());
        EmbeddedChannel ch = started(initiator);
        ChannelFuture held = write(ch, ulpdu("V-FPDU-5"));
        ch.writeInbound(Wire.buf(Arrays.copyOf(TestVectors.bytes("V-MPA-REP1"), 10)));
        elapse(ch, timeout.minusNanos(1));
        assertStillStarting(ch, initiator);
        elapse(ch, Duration.ofNanos(1));
        assertThat(ch.isOpen()).isFalse();
        MpaException e = failure(initiator);
        assertThat(e).isInstanceOf(MpaStartupTimeoutException.class);
        assertThat(held.cause()).isSameAs(e);
        assertThat(Wire.outbound(ch)).isEmpty();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void connectionLostBeforeTheReplyIsErrorOne() {
        // MPA2-R-004 "Responder closes": an unenhanced Responder closes on an enhanced Request; the
        // Initiator sees code 1 (connection lost), and may retry with RFC 5044 on a new connection.
        MpaStartupHandler initiator = MpaStartupHandler.initiator(MpaSettings.builder().build());
        EmbeddedChannel ch = started(initiator);
        ch.close();
        MpaException e = failure(initiator);
        assertThat(e.error()).isEqualTo(MpaError.CONNECTION_LOST);
        assertThat(e.terminateRequired()).isFalse();
        assertThat(ch.finish()).isFalse();
    }
}
