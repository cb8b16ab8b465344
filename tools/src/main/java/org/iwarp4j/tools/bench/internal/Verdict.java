package org.iwarp4j.tools.bench.internal;

import java.nio.ByteBuffer;

/**
 * iwarp4j's addition to perftest's exchange, used only when both ends announced iwarp4j in their
 * version string: after each size the client reports what it did ({@link #sizeDone}), and the
 * server answers with what it found in its memory. 16 octets each way, big-endian:
 * client {@code size(4) messages(8) 0(4)}, server {@code code(4) messages(8) detail(4)}.
 *
 * @param code     {@link #OK}, {@link #DATA_MISMATCH}, {@link #COUNT_MISMATCH} or {@link #SIZE_MISMATCH}
 * @param messages messages the server counted (Send test), or the client's count echoed
 * @param detail   the first octet that differed, or the size the server expected
 */
public record Verdict(int code, long messages, int detail) {

    /** Both messages' length. */
    public static final int LENGTH = 16;
    /** What the client's message is called in errors. */
    public static final String SIZE_REPORT = "the client's size report";
    /** What the server's answer is called in errors. */
    public static final String VERDICT = "the server's verdict";

    public static final int OK = 0;
    public static final int DATA_MISMATCH = 1;
    public static final int COUNT_MISMATCH = 2;
    public static final int SIZE_MISMATCH = 3;

    public static byte[] sizeDone(int size, long messages) {
        return ByteBuffer.allocate(LENGTH).putInt(size).putLong(messages).putInt(0).array();
    }

    public static int sizeOf(byte[] sizeDone) {
        return ByteBuffer.wrap(sizeDone).getInt(0);
    }

    public static long messagesOf(byte[] sizeDone) {
        return ByteBuffer.wrap(sizeDone).getLong(4);
    }

    public byte[] encode() {
        return ByteBuffer.allocate(LENGTH).putInt(code).putLong(messages).putInt(detail).array();
    }

    public static Verdict decode(byte[] octets) {
        ByteBuffer b = ByteBuffer.wrap(octets);
        return new Verdict(b.getInt(), b.getLong(), b.getInt());
    }

    public boolean ok() {
        return code == OK;
    }

    public String describe(int size) {
        return switch (code) {
            case OK -> "verified";
            case DATA_MISMATCH -> "server: octet " + detail + " of a " + size + "-octet message differs from the pattern";
            case COUNT_MISMATCH -> "server: counted " + messages + " messages of " + size + " octets, not all of them";
            case SIZE_MISMATCH -> "server expected " + detail + "-octet messages, not " + size
                    + " (give both ends the same -s/-a)";
            default -> "server: verification code " + code;
        };
    }
}
