package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.iwarp4j.mpa.internal.MarkerSpacing;
import org.junit.jupiter.api.Test;

/** RFC 5044 §4.3 marker arithmetic, against a direct walk of the stream. */
class MarkerSpacingTest {

    /** Walks the stream octet by octet: markers at multiples of 512 after the FPDU start, up to the CRC. */
    private static int walk(long fpduStart, int preCrc) {
        long pos = fpduStart;
        int remaining = preCrc;
        int markers = 0;
        while (true) {
            if (pos > fpduStart && pos % 512 == 0) {
                markers++;
                pos += 4;
                continue;
            }
            if (remaining == 0) {
                return markers;
            }
            pos++;
            remaining--;
        }
    }

    @Test
    void closedFormMatchesTheWalkForEveryAlignedStartAndManyLengths() {
        // MPA-R-016, MPA-R-017: every 4-aligned FPDU start within a 512-octet period.
        for (long start = 4; start < 4 + 512; start += 4) {
            if (start % 512 == 0) {
                continue; // a leading marker would stand there; FPDUs start after it
            }
            for (int preCrc = 4; preCrc <= 70_000; preCrc += (preCrc < 2100 ? 4 : 396)) {
                assertThat(MarkerSpacing.markersBeforeCrc(start, preCrc)).as("start %d, length %d", start, preCrc)
                        .isEqualTo(walk(start, preCrc));
            }
        }
    }

    @Test
    void encoderFramesWithMarkersAndSmallUlpdusInOneBufferAndLargeOnesWithoutCopying() {
        // With markers every FPDU is one contiguous buffer (two pieces per 512 octets cost more
        // than one copy); without markers a large ULPDU goes out as head + ULPDU + tail, uncopied.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        channel.config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
        for (int i = 0; i < 130; i++) {
            channel.writeOutbound(Wire.buf(new byte[MpaConstants.MAX_ULPDU - 4 * (i % 3)]));
            ByteBuf fpdu = channel.readOutbound();
            try {
                assertThat(fpdu).as("FPDU %d", i).isNotInstanceOf(CompositeByteBuf.class);
                assertThat(fpdu.nioBufferCount()).isEqualTo(1);
            } finally {
                fpdu.release();
            }
        }
        assertThat(channel.finish()).isFalse();
        EmbeddedChannel plain = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        ByteBuf ulpdu = Wire.buf(new byte[MpaFrameEncoder.CONTIGUOUS_LIMIT]);
        plain.writeOutbound(ulpdu.retain());
        ByteBuf fpdu = plain.readOutbound();
        try {
            assertThat(fpdu).isInstanceOf(CompositeByteBuf.class);
            ulpdu.setByte(0, 0x5A); // the FPDU shares the ULPDU's memory: it was not copied
            assertThat(fpdu.getByte(fpdu.readerIndex() + 2)).isEqualTo((byte) 0x5A);
        } finally {
            fpdu.release();
            ulpdu.release();
        }
        plain.writeOutbound(Wire.buf(new byte[MpaFrameEncoder.CONTIGUOUS_LIMIT - 1]));
        fpdu = plain.readOutbound();
        try {
            assertThat(fpdu).isNotInstanceOf(CompositeByteBuf.class);
            assertThat(fpdu.readableBytes()).isEqualTo(2 + MpaFrameEncoder.CONTIGUOUS_LIMIT - 1 + 3 + 4);
        } finally {
            fpdu.release();
        }
        assertThat(plain.finish()).isFalse();
        assertThat(channel.finish()).isFalse();
    }
}
