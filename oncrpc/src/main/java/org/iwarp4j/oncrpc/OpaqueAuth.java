package org.iwarp4j.oncrpc;

import java.util.Arrays;

/**
 * {@code struct opaque_auth { auth_flavor flavor; opaque body<400>; }} (RFC 5531 §8.2): a
 * credential or verifier as it travels, for any flavor.
 *
 * @param flavor the auth_flavor, e.g. {@link RpcConstants#AUTH_SYS}
 * @param body at most {@link RpcConstants#MAX_AUTH_BYTES} octets (copied)
 */
public record OpaqueAuth(int flavor, byte[] body) {

    /** AUTH_NONE with an empty body, the usual verifier (RFC 5531 Appendix A). */
    public static final OpaqueAuth NONE = new OpaqueAuth(RpcConstants.AUTH_NONE, new byte[0]);

    public OpaqueAuth {
        if (body.length > RpcConstants.MAX_AUTH_BYTES) {
            throw new XdrException("opaque_auth body of " + body.length + " octets exceeds "
                    + RpcConstants.MAX_AUTH_BYTES);
        }
        body = body.clone();
    }

    /** A copy of the body. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** Octets of the body. */
    public int length() {
        return body.length;
    }

    /** Writes the flavor and the body as {@code opaque<400>}. */
    public void encode(XdrEncoder out) {
        out.writeEnum(flavor).writeOpaque(body, RpcConstants.MAX_AUTH_BYTES);
    }

    /** Reads one opaque_auth; a body longer than 400 octets is an {@link XdrException}. */
    public static OpaqueAuth decode(XdrDecoder in) {
        int flavor = in.readEnum();
        byte[] body = in.readOpaque(RpcConstants.MAX_AUTH_BYTES);
        return body.length == 0 && flavor == RpcConstants.AUTH_NONE ? NONE : new OpaqueAuth(flavor, body);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpaqueAuth other && flavor == other.flavor && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return 31 * flavor + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "OpaqueAuth(flavor " + flavor + ", " + body.length + " octets)";
    }
}
