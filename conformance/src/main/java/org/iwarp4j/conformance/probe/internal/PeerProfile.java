package org.iwarp4j.conformance.probe.internal;

import java.util.Arrays;
import java.util.Set;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;

/**
 * What the early probes learnt about the peer and the later ones build on, and the Requests
 * built from it.
 */
final class PeerProfile {

    /** The IRD and ORD we offer: small, so that a peer's grant shows whether it negotiates. */
    static final int OUR_IRD = 4;
    static final int OUR_ORD = 4;

    /** Whether the peer answers an enhanced (RFC 6581) Request with an enhanced Reply; later probes use it if so. */
    boolean enhanced;
    /** The C bit of later Requests: 1 unless the peer did not take it and took C=0. */
    boolean useCrc = true;
    /** crc-honoured as judged on the mpa-revision-2 connection, or null when it was not accepted. */
    Observation crcHonoured;
    /**
     * Whether the PD_Length 512 Request got a well-formed Reply, R=0 or R=1: only then does a close
     * of 513 show that the peer told the two lengths apart.
     */
    boolean replied512;

    /** The client-server word we offer: A=0, no RTR, IRD 4, ORD 4. */
    static EnhancedConnectionData clientServer() {
        return new EnhancedConnectionData(false, Set.of(), OUR_IRD, OUR_ORD);
    }

    /** An accepting Request as later probes use it: enhanced if the peer takes that, no markers, the C bit given. */
    MpaStartupFrame plainRequest(boolean crc) {
        return enhanced ? MpaStartupFrame.request(false, crc, 2, clientServer(), new byte[0])
                : MpaStartupFrame.request(false, crc, 1, null, new byte[0]);
    }

    MpaStartupFrame plainRequest() {
        return plainRequest(useCrc);
    }

    /** PD_Length 512 (the maximum): the RFC 6581 word and 508 octets when enhanced, else 512 octets. */
    MpaStartupFrame fullPrivateData() {
        byte[] ulp = new byte[enhanced ? 508 : 512];
        Arrays.fill(ulp, (byte) 'p');
        return enhanced ? MpaStartupFrame.request(false, useCrc, 2, clientServer(), ulp)
                : MpaStartupFrame.request(false, useCrc, 1, null, ulp);
    }
}
