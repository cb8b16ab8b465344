package org.iwarp4j.testkit;

import java.time.Instant;
import java.util.Arrays;

/**
 * The payload of one captured TCP segment, kept as it was on the wire so a test can replay a
 * byte stream with its original segmentation (which is where framing bugs hide: siw, for one,
 * often sends an FPDU's CRC as a segment of its own).
 *
 * @param frameNumber the 1-based number of the frame in the capture file, as tshark numbers frames
 * @param timestamp when the frame was captured
 * @param relativeSequence the sequence number of the first payload byte relative to the initial
 *     sequence number, as tshark shows it: the first data byte after a captured SYN is 1
 * @param streamOffset where the first payload byte sits in the direction's byte stream, from 0;
 *     with a captured SYN this is {@code relativeSequence - 1}
 * @param payload the payload bytes; never empty
 */
public record TcpSegment(int frameNumber, Instant timestamp, long relativeSequence, long streamOffset, byte[] payload) {

    public TcpSegment {
        payload = payload.clone();
    }

    /** A copy of the payload bytes. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** The number of payload bytes. */
    public int length() {
        return payload.length;
    }

    /** The stream offset just past this segment's last byte. */
    public long endOffset() {
        return streamOffset + payload.length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TcpSegment that
                && frameNumber == that.frameNumber
                && timestamp.equals(that.timestamp)
                && relativeSequence == that.relativeSequence
                && streamOffset == that.streamOffset
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(streamOffset) + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "TcpSegment[frame " + frameNumber + ", seq " + relativeSequence + ", offset " + streamOffset
                + ", " + payload.length + " bytes]";
    }
}
