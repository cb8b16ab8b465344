package org.iwarp4j.tools.bench.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Where the "with copy" TCP baseline puts what it reads: a buffer the size of the registered area an
 * RDMA run places into, filled cyclically, one copy per octet read (what an application that wants
 * the data in its own memory pays on top of the socket read; RDMA's placement does both at once).
 */
final class ApplicationBuffer {

    private final ByteBuf memory;
    private int position;

    ApplicationBuffer(int length) {
        memory = Unpooled.directBuffer(length, length);
    }

    /** Copies {@code in}'s readable octets (not consuming them). */
    void copy(ByteBuf in) {
        int index = in.readerIndex();
        int left = in.readableBytes();
        while (left > 0) {
            int n = Math.min(left, memory.capacity() - position);
            memory.setBytes(position, in, index, n);
            index += n;
            left -= n;
            position = (position + n) % memory.capacity();
        }
    }

    /** The buffer itself, for tests. */
    ByteBuf memory() {
        return memory;
    }

    void release() {
        memory.release();
    }
}
