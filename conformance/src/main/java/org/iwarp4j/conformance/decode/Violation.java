package org.iwarp4j.conformance.decode;

import java.util.Objects;

/**
 * A rule broken on the wire: which {@link Check}, in which frame and connection, in which
 * direction, and what exactly was seen.
 *
 * @param frame the frame number (from 1, as tcpdump and Wireshark count) that completed the
 *     offending unit
 * @param connection the connection's index in the report
 * @param direction {@code I>R} (Initiator to Responder) or {@code R>I}
 * @param detail one line: what was seen and what the rule wanted
 */
public record Violation(Check check, long frame, int connection, String direction, String detail) {

    public Violation {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(direction, "direction");
        Objects.requireNonNull(detail, "detail");
    }

    public String requirementId() {
        return check.requirementId();
    }

    /** {@code frame 14 conn 0 I>R MPA-R-030: detail}, with {@code (SHOULD)} for a warning. */
    @Override
    public String toString() {
        return "frame " + frame + " conn " + connection + " " + direction + " " + check.requirementId()
                + (check.level() == Check.Level.SHOULD ? " (SHOULD)" : "") + ": " + detail;
    }
}
