package org.iwarp4j.mpa.internal;

import static org.iwarp4j.mpa.MpaConstants.KEY_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaStartupFrame;

/**
 * Wire form of MPA Request and Reply frames (RFC 5044 §7.1.1): no CRC, no markers. The keys
 * "MPA ID Req Frame" and "MPA ID Rep Frame" (MPA-R-044, MPA-R-045).
 */
public final class StartupFrameCodec {

    private static final byte[] REQUEST_KEY = MpaConstants.requestKey();
    private static final byte[] REPLY_KEY = MpaConstants.replyKey();

    private StartupFrameCodec() {
    }

    /** The frame's octets in a new buffer that the caller owns and must write or release. */
    public static ByteBuf encode(ByteBufAllocator alloc, MpaStartupFrame frame) {
        ByteBuf buf = alloc.buffer(MpaConstants.STARTUP_FRAME_HEADER_LENGTH + frame.privateDataLength());
        buf.writeBytes(frame.isRequest() ? REQUEST_KEY : REPLY_KEY);
        buf.writeByte(frame.flags());
        buf.writeByte(frame.revision());
        buf.writeShort(frame.privateDataLength());
        buf.writeBytes(frame.privateData());
        return buf;
    }

    /**
     * Compares the key octets that have arrived so far with the expected key.
     *
     * @return -1 while they agree, else the index of the first octet that differs
     */
    public static int keyMismatch(ByteBuf in, boolean request) {
        byte[] key = request ? REQUEST_KEY : REPLY_KEY;
        int n = Math.min(KEY_LENGTH, in.readableBytes());
        int base = in.readerIndex();
        for (int i = 0; i < n; i++) {
            if (in.getByte(base + i) != key[i]) {
                return i;
            }
        }
        return -1;
    }

    /** {@code true} if the first 16 readable octets are the other key: Request for Reply or the reverse. */
    public static boolean isOppositeKey(ByteBuf in, boolean request) {
        if (in.readableBytes() < KEY_LENGTH) {
            return false;
        }
        byte[] key = request ? REPLY_KEY : REQUEST_KEY;
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (in.getByte(in.readerIndex() + i) != key[i]) {
                return false;
            }
        }
        return true;
    }
}
