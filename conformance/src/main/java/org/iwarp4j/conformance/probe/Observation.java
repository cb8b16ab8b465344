package org.iwarp4j.conformance.probe;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One thing {@link Probe} found out about the peer, immutable: which probe, the requirement it
 * checks (an ID of the catalogue in {@code docs/requirements}), the verdict, what was seen, what
 * the RFC expects, and the raw facts behind it ({@link #facts()}: values of the frames on the
 * wire, each under a stable name).
 *
 * @param probe stable name of the probe, e.g. {@code markers}; the list is in {@code docs/probe.md}
 * @param requirement the requirement ID, e.g. {@code MPA-R-015}
 * @param verdict how the observation compares with the requirement
 * @param observed what the peer did, one line
 * @param expected what the requirement asks, one line
 * @param facts names ({@code snake_case}) to values (String, Number or Boolean), in a fixed order
 * @param millis time the probe's connection took, 0 for an observation derived from another probe's connection
 */
public record Observation(String probe, String requirement, Verdict verdict, String observed, String expected,
                          Map<String, Object> facts, long millis) {

    public Observation {
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(requirement, "requirement");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(observed, "observed");
        Objects.requireNonNull(expected, "expected");
        facts = Collections.unmodifiableMap(new LinkedHashMap<>(facts));
    }
}
