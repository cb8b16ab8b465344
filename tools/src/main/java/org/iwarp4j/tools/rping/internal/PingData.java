package org.iwarp4j.tools.rping.internal;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.iwarp4j.mpa.internal.text.PeerText;

/**
 * The ping data of Linux rping's client, octet for octet: {@code snprintf(buf, size, "rdma-ping-%d: ",
 * ping)}, then printable characters from 'A' to 'z' rotating (the first one moves on by one per
 * ping), and a NUL in the last octet. The server RDMA Writes back {@code strlen + 1} octets, so the
 * NUL is part of what comes back.
 *
 * <p>Ping 0 at 64 octets, as on the wire in rping-siw.pcap: {@code rdma-ping-0: ABC...pqr\0}.
 */
public final class PingData {

    /** {@code RPING_MSG_FMT}. */
    public static final String MESSAGE_FORMAT = "rdma-ping-%d: ";
    private static final int FIRST = 'A';
    private static final int LAST = 'z';

    private PingData() {
    }

    /** The {@code size} octets rping's client puts in its start buffer for ping number {@code ping}. */
    public static byte[] of(long ping, int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        byte[] data = new byte[size];
        byte[] prefix = String.format(Locale.ROOT, MESSAGE_FORMAT, ping).getBytes(StandardCharsets.US_ASCII);
        // snprintf writes at most size - 1 characters, but the fill starts at its return value.
        System.arraycopy(prefix, 0, data, 0, Math.min(prefix.length, size - 1));
        int c = FIRST + (int) Math.floorMod(ping, LAST - FIRST + 1);
        for (int i = prefix.length; i < size; i++) {
            data[i] = (byte) c;
            c = c == LAST ? FIRST : c + 1;
        }
        data[size - 1] = 0;
        return data;
    }

    /**
     * The C string at {@code index}, for printing: the octets before the first NUL, at most
     * {@code max} of them, as ISO-8859-1, with control octets (C0, DEL, C1) shown as {@code \xNN}
     * ({@link PeerText}): the peer chooses them, and raw they would reach the operator's terminal as
     * escape sequences. rping's own pattern is printable, so its lines are as C rping prints them.
     */
    public static String cString(ByteBuf buffer, int index, int max) {
        return PeerText.escape(buffer.toString(index, cStringLength(buffer, index, max), StandardCharsets.ISO_8859_1));
    }

    /** {@code strlen}, bounded: the octets before the first NUL within {@code max}, else {@code max}. */
    public static int cStringLength(ByteBuf buffer, int index, int max) {
        int nul = buffer.indexOf(index, index + max, (byte) 0);
        return nul < 0 ? max : nul - index;
    }

    /** The index of the first octet where {@code actual} differs from {@code expected}, or -1. */
    public static int firstDifference(byte[] expected, ByteBuf actual, int index) {
        for (int i = 0; i < expected.length; i++) {
            if (actual.getByte(index + i) != expected[i]) {
                return i;
            }
        }
        return -1;
    }
}
