package org.iwarp4j.mpa.internal;

import static org.iwarp4j.mpa.MpaConstants.IRD_ORD_NO_NEGOTIATION;

import java.util.EnumSet;
import java.util.Set;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.RtrType;

/**
 * The RFC 6581 rules for IRD/ORD (§9.1) and the connection model and RTR choice (§9.2), as pure
 * functions of the received word and the local settings.
 */
public final class IrdOrdNegotiation {

    /**
     * The Initiator's default preference among the Reply's RTR options ({@link
     * MpaSettings#preferredRtr()} comes first): a Write costs no buffer and no IRD slot.
     */
    private static final RtrType[] RTR_PREFERENCE = {RtrType.WRITE, RtrType.READ, RtrType.SEND};

    private IrdOrdNegotiation() {
    }

    /** What one side ends up with. {@code error} is set when the Initiator must Terminate. */
    public static final class Outcome {
        public final EnhancedConnectionData replyWord;
        public final int ird;
        public final int ord;
        public final boolean peerToPeer;
        public final RtrType rtr;
        public final MpaError error;
        public final String errorText;

        Outcome(EnhancedConnectionData replyWord, int ird, int ord, boolean peerToPeer, RtrType rtr,
                MpaError error, String errorText) {
            this.replyWord = replyWord;
            this.ird = ird;
            this.ord = ord;
            this.peerToPeer = peerToPeer;
            this.rtr = rtr;
            this.error = error;
            this.errorText = errorText;
        }
    }

    /**
     * Responder: the word for the Reply and the IRD/ORD to configure. Responder ORD is at most the
     * Initiator IRD (MPA2-R-005); Responder IRD is what it provides, at most the Initiator ORD (as
     * siw), raised to 1 when a Read RTR is possible and the Initiator's ORD is 0; 0x3FFF is echoed
     * and leaves the local value alone (MPA2-R-018).
     */
    public static Outcome respond(EnhancedConnectionData request, MpaSettings local) {
        int ird;
        int replyIrd;
        if (request.ord() == IRD_ORD_NO_NEGOTIATION) {
            ird = local.ird();
            replyIrd = IRD_ORD_NO_NEGOTIATION;
        } else {
            ird = Math.min(request.ord(), local.ird());
            replyIrd = ird;
        }
        int ord;
        int replyOrd;
        if (request.ird() == IRD_ORD_NO_NEGOTIATION) {
            ord = local.ord();
            replyOrd = IRD_ORD_NO_NEGOTIATION;
        } else {
            ord = Math.min(request.ird(), local.ord());
            replyOrd = ord;
        }
        // A echoed; B, C, D only with A, else zero (MPA2-R-019); at least one RTR supported (MPA2-R-020).
        Set<RtrType> replyRtr = EnumSet.noneOf(RtrType.class);
        if (request.peerToPeer()) {
            Set<RtrType> supported = local.rtrTypes().isEmpty()
                    ? EnumSet.of(RtrType.WRITE, RtrType.READ) : EnumSet.copyOf(local.rtrTypes());
            replyRtr.addAll(request.rtrTypes());
            replyRtr.retainAll(supported);
            if (replyRtr.isEmpty()) {
                // MPA2-R-008: none of the offered options fits, so list at least one we support.
                replyRtr.addAll(supported);
            }
            if (replyRtr.contains(RtrType.READ) && ird == 0 && replyIrd != IRD_ORD_NO_NEGOTIATION) {
                ird = 1;
                replyIrd = 1;
            }
        }
        EnhancedConnectionData word = new EnhancedConnectionData(request.peerToPeer(), replyRtr, replyIrd, replyOrd);
        return new Outcome(word, ird, ord, request.peerToPeer(), null, null, null);
    }

    /**
     * Initiator: IRD/ORD and the RTR to send after an accepting enhanced Reply. IRD must be at
     * least the Responder ORD, or Terminate code 6 (MPA2-R-006), unless {@link
     * MpaSettings#relaxedIrdLimit()} allows raising it; ORD is lowered to the Responder
     * IRD; in the peer-to-peer model the RTR is chosen from the Reply's options, none usable =
     * Terminate code 7 (MPA2-R-010).
     */
    public static Outcome accept(EnhancedConnectionData reply, MpaSettings local, boolean requestedPeerToPeer) {
        int ird = local.ird();
        int ord = reply.ird() == IRD_ORD_NO_NEGOTIATION ? local.ord() : Math.min(local.ord(), reply.ird());
        if (reply.ord() != IRD_ORD_NO_NEGOTIATION && reply.ord() > ird && reply.ord() <= local.relaxedIrdLimit()) {
            // Relaxed, as iw_cxgb4's process_mpa_reply: meet the Responder's ORD (docs/interop.md).
            ird = reply.ord();
        }
        if (reply.ord() != IRD_ORD_NO_NEGOTIATION && reply.ord() > ird) {
            return new Outcome(null, ird, ord, requestedPeerToPeer, null, MpaError.INSUFFICIENT_IRD,
                    "Responder ORD " + reply.ord() + " exceeds this end's IRD " + ird);
        }
        if (!requestedPeerToPeer) {
            // Client-server: the Reply's B, C, D are ignored (MPA2-R-019).
            return new Outcome(null, ird, ord, false, null, null, null);
        }
        if (!reply.peerToPeer()) {
            return new Outcome(null, ird, ord, true, null, MpaError.NO_MATCHING_RTR,
                    "peer-to-peer was requested but the Reply has A=0");
        }
        boolean readPossible = reply.ird() == IRD_ORD_NO_NEGOTIATION || reply.ird() > 0;
        RtrType preferred = local.preferredRtr();
        if (preferred != null && reply.rtrTypes().contains(preferred) && local.rtrTypes().contains(preferred)
                && (preferred != RtrType.READ || readPossible)) {
            return new Outcome(null, ird, ord, true, preferred, null, null);
        }
        for (RtrType candidate : RTR_PREFERENCE) {
            if (reply.rtrTypes().contains(candidate) && local.rtrTypes().contains(candidate)
                    && (candidate != RtrType.READ || readPossible)) {
                return new Outcome(null, ird, ord, true, candidate, null, null);
            }
        }
        return new Outcome(null, ird, ord, true, null, MpaError.NO_MATCHING_RTR,
                "no RTR option of the Reply " + reply.rtrTypes() + " can be sent (this end sends "
                        + local.rtrTypes() + ")");
    }
}
