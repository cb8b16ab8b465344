package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * A payload that MPA's direct placement already read into its target (the ULPDU is then a
 * composite of the header and a slice of the target) is recognised as being in place, so the
 * placement's checks run but its copy is skipped; any other payload is copied.
 */
class AlreadyPlacedTest {

    @Test
    void aPayloadInItsTargetIsRecognisedAndNothingElseIs() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        ByteBuf header = ByteBufAllocator.DEFAULT.directBuffer(14).writeZero(14);
        CompositeByteBuf ulpdu = ByteBufAllocator.DEFAULT.compositeDirectBuffer(2)
                .addComponents(true, header, memory.retainedSlice(100, 500));
        ByteBuf other = ByteBufAllocator.DEFAULT.directBuffer(500).writeZero(500);
        try {
            assertThat(MemoryPlacement.samePlace(ulpdu, 14, memory, 100, 500)).isTrue();
            assertThat(MemoryPlacement.samePlace(ulpdu, 14, memory, 101, 499)).isFalse();
            assertThat(MemoryPlacement.samePlace(ulpdu, 10, memory, 96, 100)).as("spans the header").isFalse();
            assertThat(MemoryPlacement.samePlace(other, 0, memory, 100, 500)).isFalse();
            assertThat(MemoryPlacement.samePlace(Unpooled.wrappedBuffer(new byte[500]), 0, memory, 100, 500)).isFalse();
        } finally {
            ulpdu.release();
            other.release();
            memory.release();
        }
    }

    @Test
    void aCopyBetweenDirectBuffersLandsExactlyAndARangeOutsideTouchesNothing() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        ByteBuf read = ByteBufAllocator.DEFAULT.directBuffer(600);
        for (int i = 0; i < 600; i++) {
            read.writeByte(i * 7);
        }
        ByteBuf payload = read.retainedSlice(50, 500);
        try {
            assertThat(payload.hasMemoryAddress()).as("the by-address path is the one under test").isTrue();
            MemoryPlacement.copy(payload, 0, memory, 300, 500);
            for (int i = 0; i < 1000; i++) {
                int expected = i >= 300 && i < 800 ? (byte) ((i - 300 + 50) * 7) : 0;
                assertThat(memory.getByte(i)).as("octet %d", i).isEqualTo((byte) expected);
            }
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IndexOutOfBoundsException.class)
                    .isThrownBy(() -> MemoryPlacement.copy(payload, 0, memory, 501, 500));
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IndexOutOfBoundsException.class)
                    .isThrownBy(() -> MemoryPlacement.copy(payload, 1, memory, 0, 500));
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IndexOutOfBoundsException.class)
                    .isThrownBy(() -> MemoryPlacement.copy(payload, 0, memory, -1, 10));
            assertThat(memory.getByte(0)).isZero();
            assertThat(memory.getByte(999)).isZero();
        } finally {
            payload.release();
            read.release();
            memory.release();
        }
    }

    /**
     * A payload that is a slice of a composite of two reads (the FPDU a read cut) is copied piece by
     * piece: every octet lands once, in order, and a target range outside the memory copies nothing.
     */
    @Test
    void aPayloadAcrossTwoReadsIsCopiedPieceByPiece() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        ByteBuf first = ByteBufAllocator.DEFAULT.directBuffer(300);
        ByteBuf second = ByteBufAllocator.DEFAULT.directBuffer(400);
        for (int i = 0; i < 300; i++) {
            first.writeByte(i * 3);
        }
        for (int i = 300; i < 700; i++) {
            second.writeByte(i * 3);
        }
        CompositeByteBuf reads = ByteBufAllocator.DEFAULT.compositeDirectBuffer().addComponents(true, first, second);
        ByteBuf payload = reads.retainedSlice(100, 500);
        try {
            assertThat(payload.hasMemoryAddress()).as("the piece-by-piece path is the one under test").isFalse();
            MemoryPlacement.copy(payload, 0, memory, 200, 500);
            for (int i = 0; i < 1000; i++) {
                int expected = i >= 200 && i < 700 ? (byte) ((i - 200 + 100) * 3) : 0;
                assertThat(memory.getByte(i)).as("octet %d", i).isEqualTo((byte) expected);
            }
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IndexOutOfBoundsException.class)
                    .isThrownBy(() -> MemoryPlacement.copy(payload, 0, memory, 501, 500));
            org.assertj.core.api.Assertions.assertThatExceptionOfType(IndexOutOfBoundsException.class)
                    .isThrownBy(() -> MemoryPlacement.copy(payload, 1, memory, 0, 500));
            assertThat(memory.getByte(999)).isZero();
        } finally {
            payload.release();
            reads.release();
            memory.release();
        }
    }

    @Test
    void aTaggedSegmentAlreadyInPlaceIsStillChecked() throws DdpException {
        StagTable table = new StagTable();
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        TaggedBuffer buffer = table.register(1, 0x1000, 1000, EnumSet.of(Access.REMOTE_WRITE), memory);
        ByteBuf header = ByteBufAllocator.DEFAULT.directBuffer(14);
        header.writeByte(0xC1).writeByte(0x40).writeInt(buffer.stag()).writeLong(0x1000 + 100);
        memory.setByte(100, 0x42); // "placed" by the socket read
        CompositeByteBuf ulpdu = ByteBufAllocator.DEFAULT.compositeDirectBuffer(2)
                .addComponents(true, header, memory.retainedSlice(100, 500));
        try {
            DdpSegment segment = DdpSegment.decode(ulpdu);
            try {
                table.place(segment, 1, TaggedBuffer.ANY_STREAM, Access.REMOTE_WRITE);
            } finally {
                segment.release();
            }
            assertThat(memory.getByte(100)).isEqualTo((byte) 0x42);
            // The checks still run: the same segment after invalidation fails as any other would.
            table.invalidate(buffer.stag());
            DdpSegment again = DdpSegment.decode(ulpdu);
            try {
                org.assertj.core.api.Assertions.assertThatExceptionOfType(DdpException.class)
                        .isThrownBy(() -> table.place(again, 1, TaggedBuffer.ANY_STREAM, Access.REMOTE_WRITE))
                        .satisfies(e -> assertThat(e.stagCheck()).isEqualTo(StagCheck.INVALID_STAG));
            } finally {
                again.release();
            }
        } finally {
            ulpdu.release();
            memory.release();
        }
    }
}
