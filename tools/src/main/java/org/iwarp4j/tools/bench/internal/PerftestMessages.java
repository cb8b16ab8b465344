package org.iwarp4j.tools.bench.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.iwarp4j.mpa.internal.text.PeerText;

/**
 * The messages perftest (4.5, "6.06") exchanges on its rdma_cm control connection besides
 * {@link PingPongDest}, each one Send of exactly these octets ({@code ctx_xchg_data}):
 * the version string (16 octets, NUL padded), the cycle buffer and cache line sizes
 * ({@code check_sys_data}, 4 octets big-endian each), the MTU as a decimal string of 2 octets
 * ({@code check_mtu}), and after a bandwidth run the client's report ({@code xchg_bw_reports}:
 * size, iterations as 8 octets big-endian, BW peak, BW average, message rate as big-endian doubles).
 */
public final class PerftestMessages {

    /** perftest's {@code MAX_VERSION}. */
    public static final int VERSION_LENGTH = 16;
    /** The version Debian bookworm's perftest 4.5 reports. */
    public static final String PERFTEST_VERSION = "6.06";
    /**
     * The version iwarp4j sends: perftest reads it with {@code atof} (6.06), so a perftest peer
     * is not disturbed; an iwarp4j peer recognises the suffix and adds its verification exchange.
     */
    public static final String IWARP4J_VERSION = PERFTEST_VERSION + " iwarp4j";
    /**
     * iwarp4j's flag in the version message's last octet, behind the string's NUL, where perftest
     * (which reads the string only) and iwarp4j before it send 0: set when this end runs without the
     * plain-TCP comparison ({@code --no-tcp}), so that an iwarp4j peer neither serves it nor waits for
     * it. Zero says that an iwarp4j peer compares, as all did before the flag.
     */
    private static final byte NO_TCP = 1;
    /**
     * iwarp4j's second flag there, set by every iwarp4j end since 2026-11-29: it ends each measured
     * bandwidth phase with the stamped message and checks for it ({@link Pattern}). Only when both
     * ends set it do they stamp, so that an end from before it still verifies against this one.
     */
    private static final byte STAMPED = 2;
    /** perftest's page-size cycle buffer and {@code DEF_CACHE_LINE_SIZE}. */
    public static final int CYCLE_BUFFER = 4096;
    public static final int CACHE_LINE_SIZE = 64;
    /** {@code IBV_MTU_1024}, what siw reports, as perftest sends it: "3" and a NUL. */
    public static final String MTU = "3";

    private PerftestMessages() {
    }

    public static byte[] version(String version) {
        byte[] text = version.getBytes(StandardCharsets.US_ASCII);
        if (text.length >= VERSION_LENGTH) {
            throw new IllegalArgumentException("version too long: " + version);
        }
        return Arrays.copyOf(text, VERSION_LENGTH);
    }

    /** {@link #IWARP4J_VERSION}, saying whether this end runs the plain-TCP comparison, and that it stamps. */
    public static byte[] iwarp4jVersion(boolean comparesTcp) {
        byte[] message = version(IWARP4J_VERSION);
        message[VERSION_LENGTH - 1] = (byte) (STAMPED | (comparesTcp ? 0 : NO_TCP));
        return message;
    }

    /** Whether an iwarp4j peer's version message says that it stamps each measured phase's last message. */
    public static boolean stamps(byte[] message) {
        return message.length == VERSION_LENGTH && (message[VERSION_LENGTH - 1] & STAMPED) != 0;
    }

    /** Whether an iwarp4j peer's version message says that it runs the plain-TCP comparison. */
    public static boolean comparesTcp(byte[] message) {
        return message.length == VERSION_LENGTH && (message[VERSION_LENGTH - 1] & NO_TCP) == 0;
    }

    /**
     * The text before the first NUL, with its control characters escaped ({@link PeerText}): the
     * peer chooses it and it is only ever shown (report lines, error messages, JSON) or tested for
     * iwarp4j's printable suffix, so it is made safe for a terminal once, here.
     */
    public static String versionOf(byte[] message) {
        int end = 0;
        while (end < message.length && message[end] != 0) {
            end++;
        }
        return PeerText.escape(new String(message, 0, end, StandardCharsets.US_ASCII));
    }

    public static boolean isIwarp4j(String version) {
        return version.endsWith(" iwarp4j");
    }

    public static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    public static int int32(byte[] message) {
        return ByteBuffer.wrap(message).getInt();
    }

    public static byte[] int64(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    public static long int64(byte[] message) {
        return ByteBuffer.wrap(message).getLong();
    }

    public static byte[] float64(double value) {
        return ByteBuffer.allocate(8).putDouble(value).array();
    }

    public static double float64(byte[] message) {
        return ByteBuffer.wrap(message).getDouble();
    }

    public static byte[] mtu() {
        return Arrays.copyOf(MTU.getBytes(StandardCharsets.US_ASCII), 2);
    }
}
