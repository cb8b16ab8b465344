package org.iwarp4j.conformance.probe;

import java.util.Locale;

/** How one {@link Observation} compares with the requirement it cites. */
public enum Verdict {
    /** The peer did what the requirement asks. */
    PASS,
    /** The peer broke a MUST (or MUST NOT) of the requirement. */
    FAIL,
    /** The peer did not follow a SHOULD (or RECOMMENDED) of the requirement. */
    WARN,
    /** The RFCs leave the behaviour open; the observation is reported, not judged. */
    INFO,
    /** The probe could not tell: a precondition failed (e.g. the peer refused the connection it needed). */
    INCONCLUSIVE;

    /** The lower-case name used in the table and in JSON ({@code pass}, {@code fail}, ...). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
