package org.iwarp4j.testkit;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.OptionalInt;

/**
 * Everything one side of a TCP connection sent, as captured: the payload segments in sequence
 * order, with retransmitted copies of bytes already seen removed.
 *
 * <p>A capture can miss segments (the nfs3 capture does); those holes are listed in {@link #gaps()}
 * rather than papered over, because a framing decoder fed a stream with a silent hole would report
 * errors that are not there. {@link #stream()} therefore refuses to join across a gap.
 */
public final class TcpDirection {

    private final TcpEndpoint source;
    private final TcpEndpoint destination;
    private final List<TcpSegment> segments;
    private final List<SequenceGap> gaps;
    private final int retransmittedSegments;
    private final OptionalInt announcedMss;

    TcpDirection(TcpEndpoint source, TcpEndpoint destination, List<TcpSegment> segments,
            List<SequenceGap> gaps, int retransmittedSegments, OptionalInt announcedMss) {
        this.source = source;
        this.destination = destination;
        this.segments = List.copyOf(segments);
        this.gaps = List.copyOf(gaps);
        this.retransmittedSegments = retransmittedSegments;
        this.announcedMss = announcedMss;
    }

    /** The sender of these bytes. */
    public TcpEndpoint source() {
        return source;
    }

    /** The receiver of these bytes. */
    public TcpEndpoint destination() {
        return destination;
    }

    /**
     * The payload segments in stream order; each byte appears once. A segment that was partly a
     * retransmission keeps only its new bytes.
     */
    public List<TcpSegment> segments() {
        return segments;
    }

    /** The holes between {@link #segments()}, in stream order; empty for a complete capture. */
    public List<SequenceGap> gaps() {
        return gaps;
    }

    /** How many captured segments were dropped or shortened because their bytes had been seen. */
    public int retransmittedSegments() {
        return retransmittedSegments;
    }

    /**
     * The MSS option in this side's SYN: the largest segment the source is willing to <em>receive</em>,
     * so it bounds the opposite direction's segments. Empty if the SYN was not captured or had none.
     */
    public OptionalInt announcedMss() {
        return announcedMss;
    }

    /** The number of captured payload bytes, which is what tshark's "follow" shows less any gap notices. */
    public long byteCount() {
        return segments.stream().mapToLong(TcpSegment::length).sum();
    }

    /**
     * All payload bytes in order.
     *
     * @throws IllegalStateException if the capture has gaps in this direction; use
     *     {@link #streamBeforeFirstGap()} or the segments instead
     */
    public byte[] stream() {
        if (!gaps.isEmpty()) {
            throw new IllegalStateException(source + " -> " + destination + ": " + gaps.size()
                    + " gap(s) in the capture, the first at stream offset " + gaps.get(0).streamOffset()
                    + " (" + gaps.get(0).length() + " bytes missing)");
        }
        return streamBeforeFirstGap();
    }

    /** The payload bytes from the start of the stream up to the first gap; all of them if there is none. */
    public byte[] streamBeforeFirstGap() {
        long end = gaps.isEmpty() ? Long.MAX_VALUE : gaps.get(0).streamOffset();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (TcpSegment segment : segments) {
            if (segment.streamOffset() >= end) {
                break;
            }
            out.writeBytes(segment.payload());
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return source + " -> " + destination + ": " + segments.size() + " segments, " + byteCount() + " bytes"
                + (gaps.isEmpty() ? "" : ", " + gaps.size() + " gaps");
    }
}
