package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The AUTH_SYS credential body (RFC 5531 Appendix A):
 * <pre>
 * struct authsys_parms {
 *     unsigned int stamp;
 *     string machinename&lt;255&gt;;
 *     unsigned int uid;
 *     unsigned int gid;
 *     unsigned int gids&lt;16&gt;;
 * };
 * </pre>
 * The verifier that goes with it is AUTH_NONE.
 *
 * @param stamp arbitrary id the caller may generate
 * @param machineName the caller's host name, at most 255 octets as UTF-8
 * @param uid effective user id
 * @param gid effective group id
 * @param gids auxiliary group ids, at most 16 (copied)
 */
public record AuthSys(int stamp, String machineName, int uid, int gid, int[] gids) {

    public AuthSys {
        if (machineName.getBytes(StandardCharsets.UTF_8).length > RpcConstants.MAX_MACHINE_NAME) {
            throw new XdrException("AUTH_SYS machinename longer than " + RpcConstants.MAX_MACHINE_NAME + " octets");
        }
        if (gids.length > RpcConstants.MAX_GIDS) {
            throw new XdrException("AUTH_SYS carries at most " + RpcConstants.MAX_GIDS + " gids, not " + gids.length);
        }
        gids = gids.clone();
    }

    /** A copy of the auxiliary gids. */
    @Override
    public int[] gids() {
        return gids.clone();
    }

    /** This credential as an opaque_auth of flavor AUTH_SYS. */
    public OpaqueAuth toOpaqueAuth() {
        XdrEncoder out = XdrEncoder.create(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        out.writeInt(stamp)
                .writeString(machineName, RpcConstants.MAX_MACHINE_NAME)
                .writeInt(uid)
                .writeInt(gid)
                .writeIntArray(gids, RpcConstants.MAX_GIDS);
        XdrMessage message = out.toMessage();
        ByteBuf stream = message.stream();
        try {
            byte[] body = new byte[stream.readableBytes()];
            stream.getBytes(stream.readerIndex(), body);
            return new OpaqueAuth(RpcConstants.AUTH_SYS, body);
        } finally {
            stream.release();
            message.release();
        }
    }

    /**
     * Parses the body of an AUTH_SYS credential. Octets after the gids, a machinename over 255
     * octets, more than 16 gids or a truncated body are an {@link XdrException} (a server
     * answers AUTH_ERROR / AUTH_BADCRED).
     */
    public static AuthSys decode(OpaqueAuth credential) {
        if (credential.flavor() != RpcConstants.AUTH_SYS) {
            throw new IllegalArgumentException("not an AUTH_SYS credential: flavor " + credential.flavor());
        }
        ByteBuf body = Unpooled.wrappedBuffer(credential.body());
        XdrDecoder in = new XdrDecoder(body);
        AuthSys sys = new AuthSys(in.readInt(), machineName(in.readOpaque(RpcConstants.MAX_MACHINE_NAME)),
                in.readInt(), in.readInt(), in.readIntArray(RpcConstants.MAX_GIDS));
        if (!in.isEmpty()) {
            throw new XdrException("AUTH_SYS body has " + in.remaining() + " octets after the gids");
        }
        return sys;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthSys other && stamp == other.stamp && uid == other.uid && gid == other.gid
                && machineName.equals(other.machineName) && Arrays.equals(gids, other.gids);
    }

    @Override
    public int hashCode() {
        return ((stamp * 31 + machineName.hashCode()) * 31 + uid) * 31 + gid * 17 + Arrays.hashCode(gids);
    }

    @Override
    public String toString() {
        return "AuthSys(stamp " + Integer.toUnsignedString(stamp) + ", machine " + machineName + ", uid "
                + Integer.toUnsignedString(uid) + ", gid " + Integer.toUnsignedString(gid) + ", gids "
                + Arrays.toString(gids) + ")";
    }

    /**
     * The machinename's octets as text. RFC 5531 bounds them on the wire (255 octets) and says
     * nothing of their encoding; each octet that is not part of UTF-8 becomes '?', one octet for
     * one, so a name within the bound on the wire stays within it here (U+FFFD, three octets in
     * UTF-8, would have a valid credential refused).
     */
    private static String machineName(byte[] octets) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .replaceWith("?")
                    .decode(ByteBuffer.wrap(octets))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException("a replacing decoder threw", e);
        }
    }
}
