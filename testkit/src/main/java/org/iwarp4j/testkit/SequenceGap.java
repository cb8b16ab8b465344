package org.iwarp4j.testkit;

/**
 * Bytes of a TCP direction that are not in the capture: the capturing host dropped the frames, or
 * cut them at the snapshot length. tshark's "follow" shows such a gap as
 * {@code [N bytes missing in capture file]}.
 *
 * @param streamOffset the offset of the first missing byte in the direction's byte stream
 * @param length how many bytes are missing
 */
public record SequenceGap(long streamOffset, long length) {

    /** The offset just past the last missing byte, where the capture resumes. */
    public long endOffset() {
        return streamOffset + length;
    }
}
