package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.facts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.accepted;
import static org.iwarp4j.conformance.probe.internal.ReplyText.describe;
import static org.iwarp4j.conformance.probe.internal.ReplyText.mayRead;
import static org.iwarp4j.conformance.probe.internal.ReplyText.replyFacts;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;

/**
 * The error probes after the Reply: terminate-write-invalid-stag (DDP-R-049),
 * terminate-read-invalid-stag (RDMAP-R-014), each with its -layout (RDMAP-R-040), and
 * zero-length-write-bogus-stag (DDP-R-031).
 */
final class TerminateProbes {

    /** An STag no peer should have handed out (index 0xDEADBE, key 0x00). */
    static final int BOGUS_STAG = 0xDEADBE00;
    static final byte[] SIXTEEN = "iwarp4j probe 16".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final ObservationLog log;
    private final ProbeConnections connections;
    private final PeerProfile peer;
    private final AnswerWait wait;
    private final TerminateJudge judge;

    TerminateProbes(ObservationLog log, ProbeConnections connections, PeerProfile peer, AnswerWait wait,
                    TerminateJudge judge) {
        this.log = log;
        this.connections = connections;
        this.peer = peer;
        this.wait = wait;
        this.judge = judge;
    }

    void writeToInvalidStag() throws IOException {
        String expected = "Terminate DDP 1/1/00 (tagged buffer, invalid STag) with D=1 echoing our segment length"
                + " and DDP header";
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(peer.plainRequest()));
            StartupAnswer answer = connections.readReply(c);
            if (!accepted(answer)) {
                noConnectionForTerminate(c, "terminate-write-invalid-stag", "DDP-R-049", expected,
                        "no connection: " + describe(answer), answer);
                return;
            }
            c.fullOperation(peer.useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ByteBuf write = Wire.write(BOGUS_STAG, 0, SIXTEEN);
            byte[] sent = ByteBufUtil.getBytes(write);
            c.send(write);
            // As for the Read: the DDP Tagged Buffer type (1/1) with another code (1/1/01 base or
            // bounds, 1/1/03 TO wrap) is a warning, anything else fails.
            judge.judge(c, new TerminateJudge.Case("terminate-write-invalid-stag", "DDP-R-049", expected, sent,
                    Set.of(TerminateReason.DDP_TAGGED_INVALID_STAG, TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED),
                    reason -> reason.layerCode() == 1 && reason.errorType() == 1, null));
        }
    }

    void readFromInvalidStag() throws IOException {
        String expected = "Terminate RDMAP 0/1/00 (remote protection, invalid STag) with D=1 and R=1 echoing our"
                + " DDP header and Read Request header";
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(peer.plainRequest()));
            StartupAnswer answer = connections.readReply(c);
            if (!accepted(answer) || !mayRead(answer.reply())) {
                noConnectionForTerminate(c, "terminate-read-invalid-stag", "RDMAP-R-014", expected, accepted(answer)
                        ? "the peer granted IRD 0" : "no connection: " + describe(answer), answer);
                return;
            }
            c.fullOperation(peer.useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ReadRequestHeader header = new ReadRequestHeader(AnswerWait.PING_SINK_STAG, 0, SIXTEEN.length, BOGUS_STAG,
                    0);
            ByteBuf read = Wire.readRequest(1, header);
            byte[] sent = ByteBufUtil.getBytes(read);
            c.send(read);
            // RDMAP-R-014 asks for the Remote Protection Error type (0/1): invalid STag and "not
            // associated" fit an STag nobody registered; another code of that type is a warning.
            judge.judge(c, new TerminateJudge.Case("terminate-read-invalid-stag", "RDMAP-R-014", expected, sent,
                    Set.of(TerminateReason.RDMAP_INVALID_STAG, TerminateReason.RDMAP_STAG_NOT_ASSOCIATED),
                    reason -> reason.layerCode() == 0 && reason.errorType() == 1, header));
        }
    }

    private void noConnectionForTerminate(ScriptedConnection c, String probe, String requirement, String expected,
                                          String observed, StartupAnswer answer) {
        log.add(probe, requirement, Verdict.INCONCLUSIVE, observed, expected, replyFacts(answer), c.elapsedMillis());
        log.add(probe + "-layout", "RDMAP-R-040", Verdict.INCONCLUSIVE, "no Terminate to judge",
                TerminateLayout.EXPECTED, facts(), 0);
    }

    void zeroLengthWriteBogusStag() throws IOException {
        String expected = "no error: a zero-length tagged segment's STag and TO are not checked";
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(peer.plainRequest()));
            StartupAnswer answer = connections.readReply(c);
            if (!accepted(answer) || !mayRead(answer.reply())) {
                log.add("zero-length-write-bogus-stag", "DDP-R-031", Verdict.INCONCLUSIVE, accepted(answer)
                        ? "the peer granted IRD 0: no zero-length Read to show the connection survived"
                        : "no connection: " + describe(answer), expected, replyFacts(answer), c.elapsedMillis());
                return;
            }
            c.fullOperation(peer.useCrc || answer.reply().crc(), answer.reply().markers(), false);
            c.send(Wire.write(BOGUS_STAG, 0xFFFF_FFFF_FFFF_FFF0L, new byte[0]));
            Map<String, Object> facts = new LinkedHashMap<>();
            Received received = wait.pingAnswer(c, facts);
            boolean alive = AnswerWait.isEmptyReadResponseTo(received, AnswerWait.PING_SINK_STAG);
            log.add("zero-length-write-bogus-stag", "DDP-R-031", alive ? Verdict.PASS
                    : AnswerWait.verdictForUnexpected(received),
                    alive ? "ignored: the zero-length Read that followed was answered"
                            : "after the zero-length Write: " + AnswerWait.describe(received), expected, facts,
                    c.elapsedMillis());
        }
    }
}
