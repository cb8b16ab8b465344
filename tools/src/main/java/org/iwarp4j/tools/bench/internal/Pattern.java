package org.iwarp4j.tools.bench.internal;

import io.netty.buffer.ByteBuf;

/**
 * The octets every benchmark moves: octet {@code j} of a message is a function of {@code j} alone,
 * so both ends can write and check it without talking, and a misplaced segment (wrong offset)
 * shows as a mismatch.
 *
 * <p>Between iwarp4j ends the last message of every measured phase is {@linkplain #fillStamped
 * stamped}: its last {@link #stampLength} octets are the complement of the pattern's. Every other
 * message is the plain pattern, and the target is cleared before the phase, so a target that holds
 * the stamped message proves that the phase placed its last message, which neither the warm-up
 * (the plain pattern) nor a phase that placed nothing (zeros) can fake.
 */
public final class Pattern {

    private Pattern() {
    }

    public static byte octet(long j) {
        return (byte) ((j >>> 8) * 31 + j * 7 + 0x5a);
    }

    /** Fills {@code length} octets of {@code buf} from absolute {@code index}. */
    public static void fill(ByteBuf buf, int index, int length) {
        for (int j = 0; j < length; j++) {
            buf.setByte(index + j, octet(j));
        }
    }

    /** Octets of a {@code size}-octet message that carry the stamp: its last 8, or all of a shorter one. */
    public static int stampLength(int size) {
        return Math.min(8, size);
    }

    /**
     * Octet {@code j} of the stamped {@code size}-octet message: the pattern's, but the complement of
     * it in the last {@link #stampLength} octets. Never 0 there for a message of up to 8 octets
     * (those octets of the pattern lie between 0x5a and 0x88), so that a zeroed target fails too.
     */
    public static byte stampedOctet(int size, int j) {
        return j >= size - stampLength(size) ? (byte) ~octet(j) : octet(j);
    }

    /** Fills {@code size} octets of {@code buf} from absolute {@code index} with the stamped message. */
    public static void fillStamped(ByteBuf buf, int index, int size) {
        fill(buf, index, size);
        stamp(buf, index, size);
    }

    /** Stamps the {@code size}-octet pattern message at {@code index}: writes its last {@link #stampLength} octets. */
    public static void stamp(ByteBuf buf, int index, int size) {
        for (int j = size - stampLength(size); j < size; j++) {
            buf.setByte(index + j, stampedOctet(size, j));
        }
    }

    /** Writes the plain pattern back over a stamped {@code size}-octet message's stamp. */
    public static void unstamp(ByteBuf buf, int index, int size) {
        for (int j = size - stampLength(size); j < size; j++) {
            buf.setByte(index + j, octet(j));
        }
    }

    /** The first octet of {@code buf[index, index+size)} that differs from the stamped message, or -1. */
    public static int firstStampedMismatch(ByteBuf buf, int index, int size) {
        for (int j = 0; j < size; j++) {
            if (buf.getByte(index + j) != stampedOctet(size, j)) {
                return j;
            }
        }
        return -1;
    }

    /** The first octet of {@code buf[index, index+length)} that differs from the pattern, or -1. */
    public static int firstMismatch(ByteBuf buf, int index, int length) {
        for (int j = 0; j < length; j++) {
            if (buf.getByte(index + j) != octet(j)) {
                return j;
            }
        }
        return -1;
    }
}
