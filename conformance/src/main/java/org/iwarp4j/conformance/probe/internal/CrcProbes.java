package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.facts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.accepted;
import static org.iwarp4j.conformance.probe.internal.ReplyText.describe;
import static org.iwarp4j.conformance.probe.internal.ReplyText.mayRead;
import static org.iwarp4j.conformance.probe.internal.ReplyText.rejected;
import static org.iwarp4j.conformance.probe.internal.ReplyText.replyFacts;

import java.io.IOException;
import java.util.Map;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.MpaStartupFrame;

/** crc-honoured (MPA-R-026, MPA-R-023) and crc-required (MPA-R-023). */
final class CrcProbes {

    private static final String HONOURED = "the peer's FPDUs carry a correct CRC32c (our Request had C=1)";

    private final ObservationLog log;
    private final ProbeConnections connections;
    private final PeerProfile peer;
    private final AnswerWait wait;

    CrcProbes(ObservationLog log, ProbeConnections connections, PeerProfile peer, AnswerWait wait) {
        this.log = log;
        this.connections = connections;
        this.peer = peer;
        this.wait = wait;
    }

    /**
     * crc-honoured on a connection whose Request had C=1: the peer must generate CRCs (MPA-R-026,
     * MPA-R-047), and its answer to a zero-length Read shows whether it does.
     */
    Observation crcOn(ScriptedConnection c, MpaStartupFrame request, MpaStartupFrame reply, long millis)
            throws IOException {
        c.fullOperation(true, reply.markers(), false);
        Map<String, Object> facts = facts("request_revision", request.revision());
        if (!mayRead(reply)) {
            return new Observation("crc-honoured", "MPA-R-026", Verdict.INCONCLUSIVE,
                    "the peer granted IRD 0: no Read to answer", HONOURED, facts, millis);
        }
        Received answerToPing = wait.pingAnswer(c, facts);
        Verdict verdict;
        String observed;
        if (answerToPing.outcome() == Outcome.MALFORMED) {
            verdict = Verdict.FAIL;
            observed = "its FPDU failed our CRC check: " + answerToPing.detail();
        } else if (answerToPing.outcome() == Outcome.RECEIVED) {
            verdict = AnswerWait.isEmptyReadResponseTo(answerToPing, AnswerWait.PING_SINK_STAG) ? Verdict.PASS
                    : Verdict.INCONCLUSIVE;
            observed = "its " + AnswerWait.describe(answerToPing) + " carried a correct CRC32c";
        } else {
            verdict = Verdict.INCONCLUSIVE;
            observed = "no FPDU to check: " + AnswerWait.describe(answerToPing);
        }
        return new Observation("crc-honoured", "MPA-R-026", verdict, observed, HONOURED, facts, millis);
    }

    /**
     * A Request with C=0, as later probes send Requests (revision 1 if the peer closed on
     * revision 2): info only. If the C=1 Request of mpa-revision-2 was not accepted, the same
     * Request as this one but with C=1 is tried once more on a new connection: CRC support is a
     * MUST (MPA-R-023), so a refusal fails only when the peer takes C=0 and answers the very same
     * Request with C=1 by R=1 — a first connection lost, or a refusal of revision 2, is no
     * evidence against CRC; and if C=1 is taken there, crc-honoured is judged on it.
     *
     * <p>Each observation goes into the log as soon as it is made: a connect that fails later
     * (a full backlog, a SYN dropped) must not turn a crc-honoured judged on the mpa-revision-2
     * connection, or a crc-required already seen, into "connection failed".
     */
    void crcRequired() throws IOException {
        if (peer.crcHonoured != null) {
            log.add(peer.crcHonoured);
        }
        StartupAnswer answer;
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(peer.plainRequest(false)));
            answer = connections.readReply(c);
            String observed;
            if (accepted(answer)) {
                observed = answer.reply().crc() ? "requires CRC: answers C=1 to our C=0"
                        : "does not require CRC: answers C=0 to our C=0";
            } else {
                observed = "refuses a Request with C=0: " + describe(answer);
            }
            log.add("crc-required", "MPA-R-023", answer.outcome() == Outcome.TIMEOUT
                    ? Verdict.INCONCLUSIVE : Verdict.INFO, observed,
                    "either: CRC may be required by configuration, or turned off when both ends ask",
                    replyFacts(answer), c.elapsedMillis());
        }
        if (peer.crcHonoured == null) {
            peer.crcHonoured = accepted(answer) ? crcRetried()
                    : new Observation("crc-honoured", "MPA-R-026", Verdict.INCONCLUSIVE,
                    "no Request accepted, C=1 or C=0", HONOURED, facts(), 0);
            log.add(peer.crcHonoured);
        }
    }

    /** The Request the C=0 one was, with C=1, on a new connection (see {@link #crcRequired}). */
    private Observation crcRetried() throws IOException {
        MpaStartupFrame request = peer.plainRequest(true);
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = connections.readReply(c);
            if (accepted(answer)) {
                return crcOn(c, request, answer.reply(), c.elapsedMillis());
            }
            // C=0 gets through where C=1 does not: later Requests go without it.
            peer.useCrc = false;
            Map<String, Object> facts = replyFacts(answer);
            facts.put("request_revision", request.revision());
            if (rejected(answer)) {
                return new Observation("crc-honoured", "MPA-R-023", Verdict.FAIL,
                        "refuses our C=1 Request with R=1, accepts the same Request with C=0",
                        "every MPA implementation supports CRC", facts, c.elapsedMillis());
            }
            return new Observation("crc-honoured", "MPA-R-023", Verdict.INCONCLUSIVE,
                    "accepts C=0; the same Request with C=1: " + describe(answer) + " (no R=1 to show it is the CRC)",
                    "every MPA implementation supports CRC", facts, c.elapsedMillis());
        }
    }
}
