package org.iwarp4j.mpa.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Feeds ByteBuf ranges to {@link CRC32C} without copying them: heap buffers by their array,
 * direct ones by their NIO view, so the JVM's CRC32C intrinsic runs over the memory in place.
 */
public final class ByteBufCrc32c {

    private ByteBufCrc32c() {
    }

    /** Adds {@code length} octets of {@code buf} from absolute {@code index}; indexes are not moved. */
    public static void update(CRC32C crc, ByteBuf buf, int index, int length) {
        if (length == 0) {
            return;
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf instanceof CompositeByteBuf) {
            updateComponents(crc, (CompositeByteBuf) buf, index, length);
        } else if (buf.nioBufferCount() == 1) {
            // A fresh view, not internalNioBuffer(): that one is cached per buffer and shared by
            // its slices, and registered memory is read by several event loops at once.
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
    }

    /**
     * A composite piece by piece, through each component's own buffer: {@code nioBuffers} would
     * gather the views in a list and copy it to an array first, a cost per FPDU that the receive
     * cumulation (a composite of reads, for the FPDU a read cut) paid on every such FPDU.
     */
    private static void updateComponents(CRC32C crc, CompositeByteBuf buf, int index, int length) {
        if (index < 0 || index > buf.capacity() - length) {
            throw new IndexOutOfBoundsException("octets " + index + ".." + ((long) index + length)
                    + " of a composite of " + buf.capacity());
        }
        int component = buf.toComponentIndex(index);
        while (length > 0) {
            ByteBuf piece = buf.internalComponent(component);
            int offset = index - buf.toByteIndex(component);
            int n = Math.min(length, piece.readableBytes() - offset);
            update(crc, piece, piece.readerIndex() + offset, n);
            index += n;
            length -= n;
            component++;
        }
    }

    /** Adds the readable octets of {@code buf}. */
    public static void update(CRC32C crc, ByteBuf buf) {
        update(crc, buf, buf.readerIndex(), buf.readableBytes());
    }
}
