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
    void encoderDoesNotConsolidateLargeFpdusWithMarkers() {
        // The encoder promises no copy: its composite must hold every piece without consolidating.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        channel.config().setAllocator(UnpooledByteBufAllocator.DEFAULT);
        for (int i = 0; i < 130; i++) {
            channel.writeOutbound(Wire.buf(new byte[MpaConstants.MAX_ULPDU - 4 * (i % 3)]));
            ByteBuf fpdu = channel.readOutbound();
            try {
                assertThat(fpdu).isInstanceOf(CompositeByteBuf.class);
                assertThat(((CompositeByteBuf) fpdu).numComponents()).as("FPDU %d", i).isGreaterThan(100);
            } finally {
                fpdu.release();
            }
        }
        assertThat(channel.finish()).isFalse();
    }
}
