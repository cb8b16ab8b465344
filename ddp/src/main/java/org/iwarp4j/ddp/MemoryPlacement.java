package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * The one copy of DDP placement: segment payload into registered memory.
 *
 * <p>Registered memory is shared: connections on different event loops may place into disjoint
 * parts of one buffer at the same time. Netty's {@code setBytes(int, ByteBuf, int, int)} on a
 * direct buffer goes through the buffer's cached internal NIO view, whose position and limit are
 * not safe for concurrent use, so concurrent placements corrupt each other. This copies through
 * a fresh view of the target instead.
 */
final class MemoryPlacement {

    private MemoryPlacement() {
    }

    /** Copies {@code length} octets from {@code src} at {@code srcIndex} into {@code dst} at {@code dstIndex}. */
    static void copy(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (length == 0) {
            return;
        }
        if (dst.hasArray()) {
            src.getBytes(srcIndex, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else if (dst.nioBufferCount() == 1) {
            ByteBuffer target = dst.nioBuffer(dstIndex, length);
            src.getBytes(srcIndex, target);
        } else {
            // A composite registered buffer: no single view to write through; not safe for
            // concurrent placement into the same components (documented on StagTable.register).
            dst.setBytes(dstIndex, src, srcIndex, length);
        }
    }
}
