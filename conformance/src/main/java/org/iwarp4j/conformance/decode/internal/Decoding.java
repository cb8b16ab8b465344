package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.iwarp4j.conformance.decode.ConnectionSummary;
import org.iwarp4j.conformance.decode.DecodeOptions;
import org.iwarp4j.conformance.decode.DecodeReport;
import org.iwarp4j.conformance.decode.DecodedUnit;
import org.iwarp4j.conformance.decode.Note;
import org.iwarp4j.conformance.decode.Violation;

/** The decoding pipeline: frames, TCP connections, iWARP connections, report. */
public final class Decoding {

    private Decoding() {
    }

    /**
     * What decoding needs of a capture file: once this is built the file's octets can go, so the
     * heap holds the TCP payloads and one connection's streams, not the file besides.
     *
     * @param unknownLinkTypes the link types of the frames skipped as unknown
     */
    public record Packets(String format, int frames, boolean truncated, int unknownFrames,
                          Set<Integer> unknownLinkTypes, TcpConnections tcp) {
    }

    /** {@link #read}, then {@link #report}. */
    public static DecodeReport run(byte[] capture, DecodeOptions options) throws CaptureFile.UnreadableException {
        return report(read(capture), options);
    }

    /**
     * @throws CaptureFile.UnreadableException if the bytes are not a capture, or no frame has a link
     *     type the decoder knows
     */
    public static Packets read(byte[] capture) throws CaptureFile.UnreadableException {
        CaptureFile file = CaptureFile.parse(capture);
        TcpConnections tcp = new TcpConnections();
        int unsupported = 0;
        Set<Integer> linkTypes = new java.util.TreeSet<>();
        for (CaptureFile.Frame frame : file.frames()) {
            if (!PacketParser.supports(frame.linkType())) {
                unsupported++;
                linkTypes.add(frame.linkType());
                continue;
            }
            Optional<TcpPacket> packet = PacketParser.parse(frame);
            packet.ifPresent(tcp::add);
        }
        if (unsupported > 0 && unsupported == file.frames().size()) {
            throw new CaptureFile.UnreadableException("no frame of a known link type: " + linkTypes
                    + " (known: 0 and 108 loopback, 1 Ethernet, 101/228/229 raw IP, 113 Linux SLL, 276 SLL2)");
        }
        return new Packets(file.format(), file.frames().size(), file.truncated(), unsupported, linkTypes, tcp);
    }

    /** Decodes the connections {@code options} selects, one at a time. */
    public static DecodeReport report(Packets file, DecodeOptions options) {
        Findings findings = new Findings();
        TcpConnections tcp = file.tcp();
        if (file.unknownFrames() > 0) {
            findings.note(-1, -1, "", file.unknownFrames() + " frames of unknown link types " + file.unknownLinkTypes()
                    + " skipped");
        }
        if (file.truncated()) {
            findings.note(file.frames(), -1, "", "reading stopped after frame " + file.frames()
                    + ": the next record is cut short or damaged");
        }
        List<ConnectionSummary> summaries = new ArrayList<>();
        for (int i = 0; i < tcp.size(); i++) {
            if (options.connection() >= 0 && options.connection() != i) {
                continue;
            }
            TcpConnections.Connection c = tcp.take(i);
            boolean request = ConnectionDecoder.startsWithRequest(c);
            boolean byPort = !request && (options.ports().contains(c.client().destination().getPort())
                    || options.ports().contains(c.client().source().getPort()));
            if (!request && !byPort) {
                continue;
            }
            summaries.add(new ConnectionDecoder(i, c, findings).decode());
        }
        List<DecodedUnit> units = new ArrayList<>(findings.units());
        units.sort(Comparator.comparingLong(DecodedUnit::frame)); // stable: a frame's units keep stream order
        List<Violation> violations = new ArrayList<>(findings.violations());
        violations.sort(Comparator.comparingLong(Violation::frame));
        List<Note> notes = new ArrayList<>(findings.notes());
        notes.sort(Comparator.comparingLong(Note::frame));
        return new DecodeReport(file.format(), file.frames(), tcp.size(), summaries, units,
                violations, notes);
    }
}
