package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Addresses of direct buffers, with or without Netty's {@code Unsafe} (off by default from Java
 * 24): the number MPA's direct placement is recognised by must be the memory's own.
 */
class BufferAddressTest {

    @Test
    void knownWithUnsafeAndFromJava22Without() {
        assertThat(BufferAddress.KNOWN)
                .isEqualTo(PlatformDependent.hasUnsafe() || Runtime.version().feature() >= 22);
    }

    @Test
    void viewsOfOneMemoryHaveItsAddressAndOthersDoNot() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        ByteBuf other = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        try {
            org.junit.jupiter.api.Assumptions.assumeTrue(BufferAddress.KNOWN, "no address in this JVM");
            ByteBuffer whole = memory.nioBuffer(0, 4096);
            ByteBuffer part = memory.nioBuffer(100, 500);
            assertThat(BufferAddress.of(part) - BufferAddress.of(whole)).isEqualTo(100);
            assertThat(BufferAddress.of(memory.slice(100, 500).nioBuffer()))
                    .isEqualTo(BufferAddress.of(part));
            assertThat(BufferAddress.of(other.nioBuffer(100, 500))).isNotEqualTo(BufferAddress.of(part));
            if (memory.hasMemoryAddress()) {
                // Netty's own number for the same octets (Unsafe, or a memory segment on Java 25).
                assertThat(BufferAddress.of(whole)).isEqualTo(memory.memoryAddress());
            }
        } finally {
            memory.release();
            other.release();
        }
    }
}
