package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.iwarp4j.mpa.internal.IrdOrdNegotiation;
import org.junit.jupiter.api.Test;

/** RFC 6581 §9.2: what a Responder offers when the Initiator asks for the peer-to-peer model. */
class RtrOptionTest {

    @Test
    void responderOffersAtLeastOneRtrOptionEvenWithNoneConfigured() {
        // MPA2-R-020: an enhanced Responder supports at least one RTR option (we receive Write and Read).
        EnhancedConnectionData request = new EnhancedConnectionData(true, EnumSet.of(RtrType.SEND), 4, 4);
        IrdOrdNegotiation.Outcome outcome = IrdOrdNegotiation.respond(request,
                MpaSettings.builder().rtrTypes(EnumSet.noneOf(RtrType.class)).build());
        assertThat(outcome.replyWord.peerToPeer()).isTrue();
        assertThat(outcome.replyWord.rtrTypes()).containsExactlyInAnyOrder(RtrType.WRITE, RtrType.READ);
    }
}
