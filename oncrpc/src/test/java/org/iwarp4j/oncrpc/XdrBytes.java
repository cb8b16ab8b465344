package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.testkit.Hex;

import java.util.function.Consumer;

/** Test helpers: messages to and from hex. */
final class XdrBytes {

    private XdrBytes() {
    }

    /** The XDR stream of {@code message} as hex (the message is not released). */
    static String hex(XdrMessage message) {
        ByteBuf stream = message.stream();
        try {
            return ByteBufUtil.hexDump(stream);
        } finally {
            stream.release();
        }
    }

    /** Encodes with {@code body}, returns the hex and releases the message. */
    static String encode(Consumer<XdrEncoder> body) {
        XdrEncoder encoder = XdrEncoder.create();
        body.accept(encoder);
        XdrMessage message = encoder.toMessage();
        try {
            return hex(message);
        } finally {
            message.release();
        }
    }

    /** A message of one inline piece holding these octets (hex, spaces allowed). */
    static XdrMessage message(String hex) {
        return XdrMessage.of(Unpooled.wrappedBuffer(Hex.decode(hex)));
    }

    /** A decoder over these octets (hex, spaces allowed). */
    static XdrDecoder decoder(String hex) {
        return new XdrDecoder(Unpooled.wrappedBuffer(Hex.decode(hex)));
    }

    /** Hex without spaces, lower case, for comparison with {@link #hex}. */
    static String plain(String hex) {
        return hex.replaceAll("\\s", "").toLowerCase();
    }
}
