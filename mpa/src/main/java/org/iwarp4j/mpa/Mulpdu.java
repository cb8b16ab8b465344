package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU;
import static org.iwarp4j.mpa.MpaConstants.MIN_MULPDU;

/** The Maximum ULPDU that fits the current EMSS (RFC 5044 §4.5). */
public final class Mulpdu {

    private Mulpdu() {
    }

    /**
     * RFC 5044 §4.5: with markers {@code EMSS - (6 + 4*ceil(EMSS/512) + EMSS mod 4)}, without
     * {@code EMSS - (6 + EMSS mod 4)} (MPA-R-031); never below 128 (§4.5, MPA-R-033) and never
     * above 64768 (§3, MPA-R-004).
     */
    public static int of(int emss, boolean markers) {
        if (emss <= 0) {
            throw new IllegalArgumentException("EMSS must be positive: " + emss);
        }
        int overhead = 6 + emss % 4;
        if (markers) {
            overhead += 4 * ((emss + MARKER_INTERVAL - 1) / MARKER_INTERVAL);
        }
        return Math.min(MAX_ULPDU, Math.max(MIN_MULPDU, emss - overhead));
    }
}
