package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.facts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.accepted;
import static org.iwarp4j.conformance.probe.internal.ReplyText.describe;
import static org.iwarp4j.conformance.probe.internal.ReplyText.mayRead;
import static org.iwarp4j.conformance.probe.internal.ReplyText.rejected;
import static org.iwarp4j.conformance.probe.internal.ReplyText.replyFacts;
import static org.iwarp4j.conformance.probe.internal.ReplyText.rtrNames;
import static org.iwarp4j.conformance.probe.internal.ReplyText.word;

import java.io.IOException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;

/**
 * The RFC 6581 peer-to-peer probes: control-flag-a-echo and rtr-options (MPA2-R-008), ird-ord
 * (MPA2-R-005), and one rtr-* probe per RTR type (MPA2-R-012); every peer-to-peer connection is
 * ended as a conformant Initiator ends it (MPA2-R-009, MPA2-R-010).
 */
final class PeerToPeerProbes {

    /** The sink STag of the Read RTR (RFC 6581 §9: STags 0). */
    static final int RTR_SINK_STAG = 0;

    private final ObservationLog log;
    private final ProbeConnections connections;
    private final PeerProfile peer;
    private final AnswerWait wait;

    PeerToPeerProbes(ObservationLog log, ProbeConnections connections, PeerProfile peer, AnswerWait wait) {
        this.log = log;
        this.connections = connections;
        this.peer = peer;
        this.wait = wait;
    }

    static String rtrProbe(RtrType rtr) {
        return "rtr-" + rtr.name().toLowerCase(Locale.ROOT);
    }

    /**
     * A peer-to-peer Request offering every RTR. The Reply must echo A and name at least one RTR
     * (MPA2-R-008), and its ORD must not exceed our IRD (MPA2-R-005; RFC 6581 §9.1: 0x3FFF
     * answers only an Initiator IRD of 0x3FFF, and ours is 4). R=1 is the ULP's right (RFC 5044
     * §7.1.2 rules 2 and 6): info, and nothing more to judge — but only in an enhanced Reply that
     * echoes A: R=1 waives neither the enhanced answer to an enhanced Request (RFC 6581 §10) nor
     * the echoed A (RFC 6581 §9.2), so a revision 1 Reply, S=0 or A=0 with R=1 fails as it does
     * with R=0; a close is not the ULP's refusal either.
     */
    void peerToPeer() throws IOException {
        if (!peer.enhanced) {
            for (String p : List.of("control-flag-a-echo", "rtr-options", "ird-ord")) {
                log.add(p, p.equals("ird-ord") ? "MPA2-R-005" : "MPA2-R-008", Verdict.INCONCLUSIVE,
                        "the peer does not accept enhanced Requests", "", facts(), 0);
            }
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.allOf(RtrType.class),
                PeerProfile.OUR_IRD, PeerProfile.OUR_ORD);
        String expectedEcho = "the Reply echoes A=1";
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, peer.useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = connections.readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                boolean refusal = rejected(answer) && answer.reply().revision() == 2 && answer.reply().enhanced()
                        && answer.reply().enhancedData().peerToPeer();
                Verdict v = answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE
                        : refusal ? Verdict.INFO : Verdict.FAIL;
                log.add("control-flag-a-echo", "MPA2-R-008", v, "peer-to-peer Request: " + describe(answer)
                        + (refusal ? " (its ULP may refuse, RFC 5044 §7.1.2 rules 2 and 6)"
                        : rejected(answer) ? " (R=1 does not waive an enhanced Reply echoing A=1, RFC 6581 §9.2, §10)"
                        : ""), expectedEcho, facts, c.elapsedMillis());
                String why = "no accepting enhanced Reply to a peer-to-peer Request";
                log.add("rtr-options", "MPA2-R-008", Verdict.INCONCLUSIVE, why, "", facts(), 0);
                log.add("ird-ord", "MPA2-R-005", Verdict.INCONCLUSIVE, why, "", facts(), 0);
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            log.add("control-flag-a-echo", "MPA2-R-008", word.peerToPeer() ? Verdict.PASS : Verdict.FAIL,
                    "Request A=1 RTR {send,write,read}; Reply " + word(word), expectedEcho, facts, c.elapsedMillis());
            String expectedRtr = "at least one RTR option in a peer-to-peer Reply";
            if (word.peerToPeer()) {
                log.add("rtr-options", "MPA2-R-008", word.rtrTypes().isEmpty() ? Verdict.FAIL : Verdict.PASS,
                        "the Reply names {" + rtrNames(word.rtrTypes()) + "}", expectedRtr,
                        facts("reply_rtr", rtrNames(word.rtrTypes())), 0);
            } else {
                log.add("rtr-options", "MPA2-R-008", Verdict.INCONCLUSIVE, "the Reply has A=0: no RTR options to judge",
                        expectedRtr, facts("reply_rtr", rtrNames(word.rtrTypes())), 0);
            }
            log.add("ird-ord", "MPA2-R-005", word.ord() <= PeerProfile.OUR_IRD ? Verdict.PASS : Verdict.FAIL,
                    "we offered IRD " + PeerProfile.OUR_IRD + " ORD " + PeerProfile.OUR_ORD + "; granted IRD "
                            + word.ird() + " ORD " + word.ord(),
                    "the Responder's ORD is at most our IRD", facts("reply_ird", word.ird(), "reply_ord", word.ord()),
                    0);
            c.fullOperation(peer.useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (word.peerToPeer()) {
                // A well-behaved Initiator sends the RTR before it goes (MPA2-R-009), or the Terminate of MPA2-R-010.
                settle(c, answer.reply(), word.rtrTypes());
            }
        }
    }

    /**
     * Ends a peer-to-peer connection as a conformant Initiator does. With an RTR the Reply names:
     * sends it and, before the connection is closed, waits (bounded) for the answer to a
     * zero-length Read (the Read RTR's own answer does): closing right behind the RTR was seen to
     * leave Linux rping -P on siw without any event for that connection, after which it accepted
     * no other. With none named, sends the Terminate MPA2-R-010 asks for: LLP "no matching RTR
     * option" (0x2/0x0/0x07). Nothing is judged here.
     */
    private void settle(ScriptedConnection c, MpaStartupFrame reply, Set<RtrType> named) throws IOException {
        if (named.isEmpty()) {
            c.send(Wire.terminate(TerminateReason.LLP_NO_MATCHING_RTR));
            return;
        }
        RtrType rtr = preferred(named);
        sendRtr(c, rtr);
        if (rtr != RtrType.READ && mayRead(reply)) {
            AnswerWait.ping(c, 1);
        }
        if (rtr == RtrType.READ || mayRead(reply)) {
            wait.answer(c, new LinkedHashMap<>());
        }
    }

    /** Write if the Reply allows it, else Read, else Send. */
    private static RtrType preferred(Set<RtrType> allowed) {
        return allowed.contains(RtrType.WRITE) ? RtrType.WRITE : allowed.contains(RtrType.READ) ? RtrType.READ
                : RtrType.SEND;
    }

    /**
     * The RTR as RFC 6581 §9 has it: a zero-length Write with STag 0 and TO 0, a zero-length Read
     * Request with STags 0, or a zero-length Send (MSN 1).
     */
    private static void sendRtr(ScriptedConnection c, RtrType rtr) {
        switch (rtr) {
            case WRITE -> c.send(Wire.write(0, 0, new byte[0]));
            case READ -> c.send(Wire.readRequest(1, new ReadRequestHeader(RTR_SINK_STAG, 0, 0, 0, 0)));
            default -> c.send(Wire.zeroLengthSend(1));
        }
    }

    void rtr(RtrType rtr) throws IOException {
        String probe = rtrProbe(rtr);
        String expected = "a peer that names this RTR in its Reply takes it: no Terminate, no delivery, "
                + "a Read RTR answered by a zero-length Read Response";
        if (!peer.enhanced) {
            log.add(probe, "MPA2-R-012", Verdict.INCONCLUSIVE, "the peer does not accept enhanced Requests", expected,
                    facts(), 0);
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.of(rtr), PeerProfile.OUR_IRD,
                PeerProfile.OUR_ORD);
        try (ScriptedConnection c = connections.open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, peer.useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = connections.readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                // A Reply our decoder cannot take (a wrong key, PD_Length above 512) is the peer's error, not a refusal.
                Verdict v = answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE
                        : answer.outcome() == Outcome.MALFORMED ? Verdict.FAIL : Verdict.INFO;
                log.add(probe, "MPA2-R-012", v, "not accepted: " + describe(answer), expected, facts,
                        c.elapsedMillis());
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            c.fullOperation(peer.useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (!word.peerToPeer() || !word.rtrTypes().contains(rtr)) {
                if (word.peerToPeer()) {
                    // Not the one we offered, but maybe one we can send: MPA2-R-010 lets us use it, and
                    // the peer's application sees a normal connection (a Terminate with LLP code 7
                    // instead leaves Linux rping -P waiting for that connection for good); with none
                    // named, that Terminate is what MPA2-R-010 asks for.
                    settle(c, answer.reply(), word.rtrTypes());
                }
                log.add(probe, "MPA2-R-012", Verdict.INFO, "not supported: offered alone, the Reply names "
                        + (word.peerToPeer() ? "{" + rtrNames(word.rtrTypes()) + "}" : "A=0"), expected, facts,
                        c.elapsedMillis());
                return;
            }
            sendRtr(c, rtr);
            Received received;
            int nextRead = 1;
            if (rtr == RtrType.READ) {
                nextRead = 2;
                received = wait.answer(c, facts);
                facts.put("answer_to_rtr", AnswerWait.describe(received));
                if (!AnswerWait.isEmptyReadResponseTo(received, RTR_SINK_STAG)) {
                    log.add(probe, "MPA2-R-012", AnswerWait.verdictForUnexpected(received),
                            "named in the Reply, but the Read RTR got: " + AnswerWait.describe(received), expected,
                            facts, c.elapsedMillis());
                    return;
                }
            }
            if (!mayRead(answer.reply())) {
                log.add(probe, "MPA2-R-012", rtr == RtrType.READ ? Verdict.PASS : Verdict.INCONCLUSIVE,
                        "named in the Reply and sent; IRD 0, so no zero-length Read to show the connection still works",
                        expected, facts, c.elapsedMillis());
                return;
            }
            AnswerWait.ping(c, nextRead);
            received = wait.answer(c, facts);
            facts.put("answer_to_read", AnswerWait.describe(received));
            boolean alive = AnswerWait.isEmptyReadResponseTo(received, AnswerWait.PING_SINK_STAG);
            log.add(probe, "MPA2-R-012", alive ? Verdict.PASS : AnswerWait.verdictForUnexpected(received),
                    alive ? "accepted: named in the Reply; after the RTR a zero-length Read was answered"
                            : "named in the Reply, but after the RTR: " + AnswerWait.describe(received),
                    expected, facts, c.elapsedMillis());
        }
    }
}
