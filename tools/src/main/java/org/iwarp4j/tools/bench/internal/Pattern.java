package org.iwarp4j.tools.bench.internal;

import io.netty.buffer.ByteBuf;

/**
 * The octets every benchmark moves: octet {@code j} of a message is a function of {@code j} alone,
 * so both ends can write and check it without talking, and a misplaced segment (wrong offset)
 * shows as a mismatch.
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
