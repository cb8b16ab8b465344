package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ReplyText.accepted;
import static org.iwarp4j.conformance.probe.internal.ReplyText.describe;
import static org.iwarp4j.conformance.probe.internal.ReplyText.rejected;
import static org.iwarp4j.conformance.probe.internal.ReplyText.replyFacts;

import java.io.IOException;
import java.util.Arrays;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;

/** private-data-512 (MPA-R-052) and private-data-513 (MPA-R-051). */
final class PrivateDataProbes {

    private final ObservationLog log;
    private final ProbeConnections connections;
    private final PeerProfile peer;

    PrivateDataProbes(ObservationLog log, ProbeConnections connections, PeerProfile peer) {
        this.log = log;
        this.connections = connections;
        this.peer = peer;
    }

    /**
     * PD_Length 512 must be taken as a frame (MPA-R-052): a close without a Reply fails. Whether
     * the private data is acceptable is the ULP's to say, and RFC 5044 §7.1.2 rules 2 and 6 have it
     * say no with R=1: that is info.
     */
    void privateData512() throws IOException {
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(peer.fullPrivateData()));
            StartupAnswer answer = connections.readReply(c);
            peer.replied512 = answer.outcome() == Outcome.RECEIVED;
            Verdict verdict = accepted(answer) ? Verdict.PASS : rejected(answer) ? Verdict.INFO
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
            log.add("private-data-512", "MPA-R-052", verdict, describe(answer) + (rejected(answer)
                    ? " (its ULP may refuse private data, RFC 5044 §7.1.2 rules 2 and 6)" : ""),
                    "accepts a Request with PD_Length 512 (R=1 if its ULP refuses the private data)", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    /**
     * PD_Length 513 makes the Request improperly formatted (RFC 5044 §7.1.1, §7.1.2 rule 9), and
     * rule 2 makes closing the connection a MUST (MPA-R-051): any Reply fails. A close passes only
     * if the 512-octet Request got a Reply, R=0 or R=1 (its ULP's refusal): the peer told the two
     * lengths apart. If 512 was closed too, the close may have nothing to do with the length, and
     * the probe cannot tell.
     */
    void privateData513() throws IOException {
        byte[] frame = ScriptedConnection.encode(peer.fullPrivateData());
        byte[] tooLong = Arrays.copyOf(frame, frame.length + 1);
        tooLong[tooLong.length - 1] = 'p';
        tooLong[18] = (byte) (513 >>> 8);
        tooLong[19] = (byte) 513;
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(tooLong);
            StartupAnswer answer = connections.readReply(c);
            Verdict verdict;
            String observed = describe(answer);
            if (answer.outcome() == Outcome.CLOSED) {
                verdict = peer.replied512 ? Verdict.PASS : Verdict.INCONCLUSIVE;
                observed += peer.replied512 ? "" : " (so was the PD_Length 512 Request: not evidence of the 512 limit)";
            } else if (answer.outcome() == Outcome.TIMEOUT) {
                verdict = Verdict.INCONCLUSIVE;
            } else {
                verdict = Verdict.FAIL;
            }
            log.add("private-data-513", "MPA-R-051", verdict, observed,
                    "closes the connection: PD_Length above 512 makes the Request invalid", replyFacts(answer),
                    c.elapsedMillis());
        }
    }
}
