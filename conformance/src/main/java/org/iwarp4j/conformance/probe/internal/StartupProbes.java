package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.facts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.accepted;
import static org.iwarp4j.conformance.probe.internal.ReplyText.describe;
import static org.iwarp4j.conformance.probe.internal.ReplyText.mayRead;
import static org.iwarp4j.conformance.probe.internal.ReplyText.replyFacts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.rtrNames;
import static org.iwarp4j.conformance.probe.internal.ReplyText.word;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;

/**
 * The probes of the MPA startup: mpa-revision-2 (MPA2-R-003) with client-server-a-clear
 * (MPA2-R-019), mpa-revision-1 (MPA2-R-014), markers (MPA-R-015), fpdu-before-reply (MPA-R-054)
 * and startup-timeout (MPA-R-067).
 */
final class StartupProbes {

    private final ObservationLog log;
    private final ProbeConnections connections;
    private final PeerProfile peer;
    private final AnswerWait wait;
    private final CrcProbes crc;
    private final Duration timeout;
    private final Duration startupWait;

    StartupProbes(ObservationLog log, ProbeConnections connections, PeerProfile peer, AnswerWait wait, CrcProbes crc,
                  Duration timeout, Duration startupWait) {
        this.log = log;
        this.connections = connections;
        this.peer = peer;
        this.wait = wait;
        this.crc = crc;
        this.timeout = timeout;
        this.startupWait = startupWait;
    }

    /**
     * An enhanced Request (rev 2, S=1, C=1). RFC 6581 §10: an enhanced Responder answers with an
     * enhanced Reply (MPA2-R-003), even one with R=1 — that is judged by its S bit and word, its
     * refusal by the probes that follow; a Responder that does not do the enhanced mode closes
     * the connection, which is its rule and not a failure (info; MPA2-R-004 lets us go on with
     * revision 1). A revision 1 Reply to it is neither (fail).
     */
    void revision2() throws IOException {
        MpaStartupFrame request = MpaStartupFrame.request(false, true, 2, PeerProfile.clientServer(), new byte[0]);
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = connections.readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            MpaStartupFrame reply = answer.reply();
            String expected = "an enhanced Reply: rev 2, S=1, the IRD/ORD word (an RFC 5044-only Responder closes instead)";
            boolean enhancedReply = reply != null && reply.revision() == 2 && reply.enhanced();
            Verdict verdict;
            String observed = describe(answer);
            switch (answer.outcome()) {
                case TIMEOUT -> verdict = Verdict.INCONCLUSIVE;
                case CLOSED -> {
                    verdict = Verdict.INFO;
                    observed += " (as an RFC 5044-only Responder does, RFC 6581 §10: later probes use rev 1)";
                }
                case MALFORMED -> verdict = Verdict.FAIL;
                default -> {
                    verdict = enhancedReply ? Verdict.PASS : Verdict.FAIL;
                    observed += enhancedReply ? (reply.reject() ? " (an enhanced Reply all the same)" : "")
                            : " (answered as an RFC 5044 Responder)";
                }
            }
            peer.enhanced = enhancedReply;
            log.add("mpa-revision-2", "MPA2-R-003", verdict, observed, expected, facts, c.elapsedMillis());
            if (enhancedReply) {
                EnhancedConnectionData word = reply.enhancedData();
                boolean clear = !word.peerToPeer() && word.rtrTypes().isEmpty();
                log.add("client-server-a-clear", "MPA2-R-019", clear ? Verdict.PASS : Verdict.FAIL,
                        "Request A=0; Reply " + word(word), "A=0 and no RTR bits in the Reply",
                        facts("reply_peer_to_peer", word.peerToPeer(), "reply_rtr", rtrNames(word.rtrTypes())), 0);
            } else {
                log.add("client-server-a-clear", "MPA2-R-019", Verdict.INCONCLUSIVE, "no enhanced Reply to read A from",
                        "A=0 and no RTR bits in the Reply", facts(), 0);
            }
            if (accepted(answer)) {
                peer.crcHonoured = crc.crcOn(c, request, reply, 0);
            }
        }
    }

    void revision1() throws IOException {
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, peer.useCrc, 1, null, new byte[0])));
            StartupAnswer answer = connections.readReply(c);
            boolean ok = accepted(answer) && answer.reply().revision() == 1 && !answer.reply().enhanced();
            log.add("mpa-revision-1", "MPA2-R-014", ok ? Verdict.PASS
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL,
                    describe(answer), "a plain RFC 5044 Reply: rev 1, R=0, no IRD/ORD word", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    void markers() throws IOException {
        MpaStartupFrame request = peer.enhanced
                ? MpaStartupFrame.request(true, peer.useCrc, 2, PeerProfile.clientServer(), new byte[0])
                : MpaStartupFrame.request(true, peer.useCrc, 1, null, new byte[0]);
        String expected = "accepts M=1 and puts a marker every 512 octets of what it sends";
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = connections.readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (answer.outcome() == Outcome.TIMEOUT) {
                log.add("markers", "MPA-R-015", Verdict.INCONCLUSIVE, describe(answer), expected, facts,
                        c.elapsedMillis());
                return;
            }
            if (!accepted(answer)) {
                // MPA-R-015 is a MUST of every sender: unlike private data, markers are not the ULP's to refuse.
                String how = answer.outcome() == Outcome.RECEIVED ? "rejects markers with R=1" : "answers wrongly: "
                        + describe(answer);
                log.add("markers", "MPA-R-015", Verdict.FAIL, how, expected, facts, c.elapsedMillis());
                return;
            }
            MpaStartupFrame reply = answer.reply();
            c.fullOperation(peer.useCrc || reply.crc(), reply.markers(), true);
            if (!mayRead(reply)) {
                log.add("markers", "MPA-R-015", Verdict.INCONCLUSIVE, "accepts M=1; IRD 0, so no FPDU to check",
                        expected, facts, c.elapsedMillis());
                return;
            }
            Received received = wait.pingAnswer(c, facts);
            Verdict verdict;
            String observed;
            if (received.outcome() == Outcome.RECEIVED) {
                verdict = Verdict.PASS;
                observed = "accepts M=1; its " + AnswerWait.describe(received) + " had its markers in place";
            } else if (received.outcome() == Outcome.MALFORMED) {
                verdict = Verdict.FAIL;
                observed = "accepts M=1 but answers wrongly: " + received.detail();
            } else {
                verdict = Verdict.INCONCLUSIVE;
                observed = "accepts M=1; then " + AnswerWait.describe(received);
            }
            log.add("markers", "MPA-R-015", verdict, observed, expected, facts, c.elapsedMillis());
        }
    }

    void fpduBeforeReply() throws IOException {
        MpaStartupFrame request = peer.plainRequest();
        String expected = "RFC 5044 has the Initiator wait for the Reply; what a Responder does with an early FPDU is open";
        try (ScriptedConnection c = connections.open()) {
            c.fullOperation(peer.useCrc, false, false);
            byte[] early = c.frame(Wire.readRequest(1, AnswerWait.PING));
            byte[] req = ScriptedConnection.encode(request);
            byte[] both = Arrays.copyOf(req, req.length + early.length);
            System.arraycopy(early, 0, both, req.length, early.length);
            c.sendRaw(both);  // one write: the early FPDU arrives with the Request
            StartupAnswer answer = connections.readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            String observed;
            if (!accepted(answer)) {
                observed = describe(answer);
            } else if (answer.reply().markers()) {
                observed = "accepted (Reply asks for markers, not followed further)";
            } else {
                Received received = AnswerWait.nextNotSend(c, timeout, facts);
                facts.put("answer", AnswerWait.describe(received));
                observed = switch (received.outcome()) {
                    case RECEIVED -> AnswerWait.isEmptyReadResponseTo(received, AnswerWait.PING_SINK_STAG)
                            ? "Reply, then took the early zero-length Read as the first FPDU and answered it"
                            : "Reply, then " + AnswerWait.describe(received);
                    case TIMEOUT -> "Reply, then nothing: the early FPDU was ignored or is still pending";
                    case CLOSED -> "Reply, then the connection " + received.detail();
                    default -> "Reply, then " + AnswerWait.describe(received);
                };
            }
            log.add("fpdu-before-reply", "MPA-R-054", Verdict.INFO, observed, expected, facts, c.elapsedMillis());
        }
    }

    void startupTimeout() throws IOException {
        String expected = "the Responder gives up on a connection that sends no Request (a SHOULD)";
        // --timeout bounds the connect, as everywhere; the wait is the startup wait's.
        try (ScriptedConnection c = connections.open(timeout, startupWait.plus(timeout))) {
            long waited = c.awaitClose(startupWait);
            // Counted from before our connect, not from the wait: the peer's startup clock starts
            // when it has the connection, which may be before this thread came back from connect.
            long closedAfter = waited >= 0 ? c.elapsedMillis() : -1;
            Map<String, Object> facts = new LinkedHashMap<>();
            facts.put("waited_millis", waited >= 0 ? waited : startupWait.toMillis());
            facts.put("closed_after_millis", closedAfter);
            log.add("startup-timeout", "MPA-R-067", closedAfter >= 0 ? Verdict.PASS : Verdict.WARN,
                    closedAfter >= 0 ? "closed the silent connection after " + closedAfter + " ms (" + c.closedHow() + ")"
                            : "still open after " + startupWait.toMillis() + " ms (we stopped waiting there)",
                    expected, facts, c.elapsedMillis());
        }
    }
}
