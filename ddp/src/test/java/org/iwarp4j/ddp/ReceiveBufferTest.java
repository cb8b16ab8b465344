package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiveBuffer#of(long, ByteBuf, int, int)}, the one-piece buffer without a list of the
 * caller's: the same buffer as the list form with one entry, placing at {@code index + offset}.
 */
class ReceiveBufferTest {

    @Test
    void aOnePieceBufferAtAnIndexIsTheListFormWithOneEntryAndPlacesThere() {
        ByteBuf memory = Unpooled.buffer(64).writeZero(64);
        ByteBuf src = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        try {
            ReceiveBuffer one = ReceiveBuffer.of(9, memory, 10, 20);
            ReceiveBuffer listed = ReceiveBuffer.of(9, List.of(new ScatterEntry(memory, 10, 20)));
            assertThat(one.workRequestId()).isEqualTo(9);
            assertThat(one.length()).isEqualTo(20).isEqualTo(listed.length());
            assertThat(one.scatterList()).isEqualTo(listed.scatterList());
            assertThatThrownBy(() -> one.scatterList().add(new ScatterEntry(memory, 0, 1)))
                    .isInstanceOf(UnsupportedOperationException.class);

            one.write(3, src, 1, 4); // octets 2..5 at buffer offset 3: memory[13, 17)
            assertThat(memory.getByte(12)).isZero();
            assertThat(memory.getByte(13)).isEqualTo((byte) 2);
            assertThat(memory.getByte(16)).isEqualTo((byte) 5);
            assertThat(memory.getByte(17)).isZero();
        } finally {
            memory.release();
            src.release();
        }
    }

    @Test
    void aOnePieceBufferOutsideTheMemoryIsRefused() {
        ByteBuf memory = Unpooled.buffer(64);
        try {
            assertThatThrownBy(() -> ReceiveBuffer.of(1, memory, 50, 20)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ReceiveBuffer.of(1, memory, -1, 2)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            memory.release();
        }
    }
}
