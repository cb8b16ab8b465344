package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.conformance.decode.internal.SendOctets.Outcome;
import org.junit.jupiter.api.Test;

/** {@link SendOctets}: only whole messages, from MO 0 on, and no more than the limit. */
class SendOctetsTest {

    /** A segment payload behind a 2-octet stand-in for the DDP header. */
    private static byte[] segment(int... octets) {
        byte[] u = new byte[2 + octets.length];
        for (int i = 0; i < octets.length; i++) {
            u[2 + i] = (byte) octets[i];
        }
        return u;
    }

    @Test
    void segmentsFromMoZeroMakeTheMessage() {
        SendOctets s = new SendOctets(64);
        assertThat(s.add(1, 0, segment(1, 2, 3), 2, false)).isEqualTo(Outcome.MORE);
        assertThat(s.add(1, 3, segment(4, 5), 2, true)).isEqualTo(Outcome.WHOLE);
        assertThat(s.message()).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void aMessageSeenFromItsMiddleOrWithAHoleIsIncomplete() {
        SendOctets s = new SendOctets(64);
        assertThat(s.add(1, 3, segment(4, 5), 2, true)).isEqualTo(Outcome.INCOMPLETE);
        assertThat(s.add(2, 0, segment(1, 2, 3), 2, false)).isEqualTo(Outcome.MORE);
        assertThat(s.add(2, 5, segment(6), 2, true)).isEqualTo(Outcome.INCOMPLETE); // MO 3-4 missing
        assertThat(s.add(3, 0, segment(9), 2, true)).isEqualTo(Outcome.WHOLE);
        assertThat(s.message()).containsExactly(9);
    }

    @Test
    void aNewMsnOrAResetDropsWhatWasCollected() {
        SendOctets s = new SendOctets(64);
        s.add(1, 0, segment(1, 2), 2, false);
        assertThat(s.add(2, 0, segment(7), 2, true)).isEqualTo(Outcome.WHOLE);
        assertThat(s.message()).containsExactly(7);
        s.add(3, 0, segment(1, 2), 2, false);
        s.reset(); // a gap
        assertThat(s.add(3, 2, segment(3), 2, true)).isEqualTo(Outcome.INCOMPLETE);
    }

    /** Many small segments: the buffer grows as needed, and stops at the limit. */
    @Test
    void longMessagesAreCountedNotKeptBeyondTheLimit() {
        SendOctets s = new SendOctets(1000);
        for (int mo = 0; mo < 990; mo += 10) {
            s.add(4, mo, new byte[12], 2, false);
        }
        assertThat(s.add(4, 990, new byte[12], 2, true)).isEqualTo(Outcome.WHOLE);
        assertThat(s.message()).hasSize(1000);
        for (int mo = 0; mo < 1000; mo += 10) {
            s.add(5, mo, new byte[12], 2, false);
        }
        assertThat(s.add(5, 1000, new byte[3], 2, true)).isEqualTo(Outcome.TOO_LONG);
        assertThat(s.length()).isEqualTo(1001);
        assertThat(s.message()).isNull();
    }
}
