package org.iwarp4j.conformance.probe.internal;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;

/** The peer's answer to a Request, as facts and words, and the few questions the probes ask of it. */
final class ReplyText {

    private ReplyText() {
    }

    static Map<String, Object> replyFacts(StartupAnswer answer) {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("reply", answer.outcome().name().toLowerCase(Locale.ROOT));
        MpaStartupFrame reply = answer.reply();
        if (reply != null) {
            facts.put("reply_revision", reply.revision());
            // Octet 16 as it arrived: below revision 2 the S bit is a reserved bit the frame object drops.
            facts.put("reply_flags", String.format("0x%02x", answer.flagsOctet()));
            facts.put("reply_reject", reply.reject());
            facts.put("reply_crc", reply.crc());
            facts.put("reply_markers", reply.markers());
            facts.put("reply_pd_length", reply.privateDataLength());
            EnhancedConnectionData word = reply.enhancedData();
            if (word != null) {
                facts.put("reply_peer_to_peer", word.peerToPeer());
                facts.put("reply_rtr", rtrNames(word.rtrTypes()));
                facts.put("reply_ird", word.ird());
                facts.put("reply_ord", word.ord());
            }
        } else if (!answer.detail().isEmpty()) {
            facts.put("reply_detail", answer.detail());
        }
        return facts;
    }

    static String rtrNames(Set<RtrType> types) {
        StringBuilder names = new StringBuilder();
        for (RtrType t : types) {
            names.append(names.length() == 0 ? "" : ",").append(t.name().toLowerCase(Locale.ROOT));
        }
        return names.toString();
    }

    static boolean accepted(StartupAnswer answer) {
        return answer.outcome() == Outcome.RECEIVED && !answer.reply().reject();
    }

    static boolean rejected(StartupAnswer answer) {
        return answer.outcome() == Outcome.RECEIVED && answer.reply().reject();
    }

    /** "closed without a Reply", "a Reply with R=1", ... */
    static String describe(StartupAnswer answer) {
        switch (answer.outcome()) {
            case RECEIVED:
                MpaStartupFrame reply = answer.reply();
                return (reply.reject() ? "rejected: Reply R=1" : "accepted: Reply R=0") + ", rev " + reply.revision()
                        + (reply.crc() ? ", C=1" : ", C=0") + (reply.markers() ? ", M=1" : "")
                        + (reply.enhanced() ? ", " + word(reply.enhancedData()) : "");
            case CLOSED:
                return answer.detail();
            case TIMEOUT:
                return "no Reply within the timeout";
            default:
                return "malformed Reply: " + answer.detail();
        }
    }

    static String word(EnhancedConnectionData word) {
        return (word.peerToPeer() ? "A=1 RTR {" + rtrNames(word.rtrTypes()) + "}" : "A=0")
                + " IRD " + word.ird() + " ORD " + word.ord();
    }

    /** Whether the peer may get a Read Request from us: its IRD from the Reply, unknown (assumed yes) for rev 1. */
    static boolean mayRead(MpaStartupFrame reply) {
        return !reply.enhanced() || reply.enhancedData().ird() > 0;
    }
}
