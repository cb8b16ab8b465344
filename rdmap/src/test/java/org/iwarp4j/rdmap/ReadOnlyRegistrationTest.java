package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.junit.jupiter.api.Test;

/**
 * Read-only memory is refused for any access that lets data be placed into it: placement writes
 * by address where it can, and a read-only view (a read-only mapped file, a
 * {@code ByteBuf.asReadOnly()}) still exposes one.
 */
class ReadOnlyRegistrationTest {

    @Test
    void readOnlyMemoryIsRefusedForWriteAccessAndTakenForRemoteRead() {
        ByteBuf memory = Unpooled.directBuffer(64).writeZero(64);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            ByteBuf readOnly = memory.asReadOnly();
            for (Access write : EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)) {
                assertThatThrownBy(() -> pd.register(readOnly, EnumSet.of(Access.REMOTE_READ, write)))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("read-only memory");
                ByteBuffer mapped = ByteBuffer.allocateDirect(64).asReadOnlyBuffer();
                assertThatThrownBy(() -> pd.register(mapped, EnumSet.of(write)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            try (MemoryRegion source = pd.register(readOnly, EnumSet.of(Access.REMOTE_READ))) {
                assertThat(source.length()).isEqualTo(64);
            }
        } finally {
            memory.release();
        }
    }
}
