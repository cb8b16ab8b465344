package org.iwarp4j.conformance.decode;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What {@link CaptureDecoder} found in one capture: the iWARP connections, every decoded unit in
 * frame order, the rules broken, and notes (gaps, quirks). Immutable.
 *
 * @param format {@code pcap} or {@code pcapng}
 * @param frames frames in the file
 * @param tcpConnections TCP connections in the file, iWARP or not
 */
public record DecodeReport(String format, int frames, int tcpConnections, List<ConnectionSummary> connections,
                           List<DecodedUnit> units, List<Violation> violations, List<Note> notes) {

    public DecodeReport {
        connections = List.copyOf(connections);
        units = List.copyOf(units);
        violations = List.copyOf(violations);
        notes = List.copyOf(notes);
    }

    /** 1 if a MUST-level rule was broken, else 0 (warnings do not count). */
    public int exitStatus() {
        return violations.stream().anyMatch(v -> v.check().level() == Check.Level.MUST) ? 1 : 0;
    }

    /** The requirement IDs broken, in order of first occurrence, each once. */
    public List<String> violatedIds() {
        return violations.stream().map(Violation::requirementId).distinct().collect(Collectors.toList());
    }
}
