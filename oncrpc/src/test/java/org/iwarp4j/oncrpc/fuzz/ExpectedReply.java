package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcAuthException;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.iwarp4j.oncrpc.RpcMismatchException;
import org.iwarp4j.oncrpc.RpcProcedureUnavailableException;
import org.iwarp4j.oncrpc.RpcProgramMismatchException;
import org.iwarp4j.oncrpc.RpcProgramUnavailableException;
import org.iwarp4j.oncrpc.RpcProtocolException;
import org.iwarp4j.oncrpc.RpcSystemErrorException;

/**
 * What RFC 5531 §9 says a client makes of a reply's octets, read word by word without the
 * project's XDR code: the second opinion of {@link RpcClientReplyFuzzTarget}.
 *
 * @param failure the exception the call fails with, or null for a successful reply
 * @param verifier a successful reply's verifier
 * @param headerLength octets of a successful reply's header (where its results start)
 * @param low PROG_MISMATCH's or RPC_MISMATCH's lowest version
 * @param high their highest version
 * @param authStat AUTH_ERROR's auth_stat
 */
record ExpectedReply(Class<? extends Throwable> failure, OpaqueAuth verifier, int headerLength, int low, int high,
                     int authStat) {

    private static final int MAX_AUTH_BYTES = 400;
    private static final ExpectedReply MALFORMED = new ExpectedReply(RpcProtocolException.class, null, 0, 0, 0, 0);

    /** The reply {@code octets} to a call with xid {@code callXid}. */
    static ExpectedReply of(byte[] octets, int callXid) {
        Words in = new Words(octets);
        if (!in.has(3)) {
            return MALFORMED;
        }
        int xid = in.next();
        if (in.next() != 1) { // msg_type REPLY
            return MALFORMED;
        }
        ExpectedReply header = switch (in.next()) {
            case 0 -> accepted(in);
            case 1 -> denied(in);
            default -> MALFORMED;
        };
        // The header is read whole before its xid is compared with the call's.
        return header != MALFORMED && xid != callXid ? MALFORMED : header;
    }

    private static ExpectedReply accepted(Words in) {
        if (!in.has(2)) {
            return MALFORMED;
        }
        int flavor = in.next();
        long length = Integer.toUnsignedLong(in.next());
        if (length > MAX_AUTH_BYTES || !in.has((int) (length + 3) / 4 + 1)) {
            return MALFORMED;
        }
        OpaqueAuth verifier = new OpaqueAuth(flavor, in.octets((int) length));
        Class<? extends Throwable> failure = switch (in.next()) {
            case 0 -> null;
            case 1 -> RpcProgramUnavailableException.class;
            case 2 -> RpcProgramMismatchException.class;
            case 3 -> RpcProcedureUnavailableException.class;
            case 4 -> RpcGarbageArgsException.class;
            case 5 -> RpcSystemErrorException.class;
            default -> RpcProtocolException.class;
        };
        if (failure == RpcProtocolException.class) {
            return MALFORMED;
        }
        if (failure != RpcProgramMismatchException.class) {
            return new ExpectedReply(failure, verifier, in.offset(), 0, 0, 0);
        }
        return in.has(2) ? new ExpectedReply(failure, verifier, in.offset(), in.next(), in.next(), 0) : MALFORMED;
    }

    private static ExpectedReply denied(Words in) {
        if (!in.has(1)) {
            return MALFORMED;
        }
        return switch (in.next()) {
            case 0 -> in.has(2) ? new ExpectedReply(RpcMismatchException.class, null, 0, in.next(), in.next(), 0)
                    : MALFORMED;
            case 1 -> in.has(1) ? new ExpectedReply(RpcAuthException.class, null, 0, 0, 0, in.next()) : MALFORMED;
            default -> MALFORMED;
        };
    }

    /** Asserts that the call failed with this failure and the details it carries. */
    void check(Throwable actual) {
        if (failure == null) {
            throw new AssertionError("a successful reply failed the call", actual);
        }
        if (actual.getClass() != failure) {
            throw new AssertionError("expected " + failure.getSimpleName() + ", got", actual);
        }
        if (actual instanceof RpcProgramMismatchException e) {
            assertThat(new int[] {e.low(), e.high()}).containsExactly(low, high);
        } else if (actual instanceof RpcMismatchException e) {
            assertThat(new int[] {e.low(), e.high()}).containsExactly(low, high);
        } else if (actual instanceof RpcAuthException e) {
            assertThat(e.code()).isEqualTo(authStat);
        }
    }

    /** Big-endian 32-bit words over the octets, and opaque bodies padded to a word. */
    private static final class Words {
        private final byte[] octets;
        private int at;

        Words(byte[] octets) {
            this.octets = octets;
        }

        boolean has(int words) {
            return octets.length - at >= 4L * words;
        }

        int next() {
            int w = (octets[at] & 0xFF) << 24 | (octets[at + 1] & 0xFF) << 16 | (octets[at + 2] & 0xFF) << 8
                    | octets[at + 3] & 0xFF;
            at += 4;
            return w;
        }

        byte[] octets(int length) {
            byte[] body = java.util.Arrays.copyOfRange(octets, at, at + length);
            at += (length + 3) & ~3;
            return body;
        }

        int offset() {
            return at;
        }
    }
}
