package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.conformance.decode.Check;
import org.iwarp4j.conformance.decode.DecodedUnit;
import org.iwarp4j.conformance.decode.Note;
import org.iwarp4j.conformance.decode.Violation;

/** Collects what the decoders find, for the report. */
public final class Findings {

    private final List<DecodedUnit> units = new ArrayList<>();
    private final List<Violation> violations = new ArrayList<>();
    private final List<Note> notes = new ArrayList<>();

    void unit(long frame, int connection, String direction, String summary, Map<String, Map<String, Object>> layers) {
        units.add(new DecodedUnit(frame, connection, direction, summary, layers));
    }

    void violation(Check check, long frame, int connection, String direction, String detail) {
        violations.add(new Violation(check, frame, connection, direction, detail));
    }

    void note(long frame, int connection, String direction, String text) {
        notes.add(new Note(frame, connection, direction, text));
    }

    public List<DecodedUnit> units() {
        return units;
    }

    public List<Violation> violations() {
        return violations;
    }

    public List<Note> notes() {
        return notes;
    }

    /** An ordered map, for building layers. */
    static Map<String, Object> fields(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
