package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * How the decoder joins TCP reads (MPA-R-037: FPDUs are found whatever the segmentation): large
 * FPDUs that span reads are joined without copying the reads, and a ULPDU that lies inside one
 * read is a slice of that read itself; small joins are copied into one buffer. Every ULPDU comes
 * out intact and every buffer is released (leak detection is PARANOID).
 */
class FpduCumulationTest {

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] encode(boolean markers, List<byte[]> ulpdus) {
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, true, false));
        for (byte[] u : ulpdus) {
            encoder.writeOutbound(Wire.buf(u));
        }
        byte[] stream = Wire.outbound(encoder);
        encoder.finishAndReleaseAll();
        return stream;
    }

    @Test
    void aUlpduInsideOneReadOfAJoinedStreamIsASliceOfThatRead() {
        // FPDUs of 40008 octets: the first lies in read 1, the second spans reads 1 and 2, the
        // third lies in read 2 (stream offsets 80016..120024, read 2 starts at 65536).
        List<byte[]> ulpdus = List.of(random(40000, 1), random(40000, 2), random(40000, 3));
        byte[] stream = encode(false, ulpdus);
        assertThat(stream).hasSize(3 * 40008);
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(false, true, 65535));
        ByteBuf read1 = ByteBufAllocator.DEFAULT.directBuffer(65536).writeBytes(stream, 0, 65536);
        ByteBuf read2 = ByteBufAllocator.DEFAULT.directBuffer(65536).writeBytes(stream, 65536, stream.length - 65536);
        read2.retain(); // kept to change an octet after decoding
        decoder.writeInbound(read1, read2);
        List<ByteBuf> out = new ArrayList<>();
        for (Object o; (o = decoder.readInbound()) != null; ) {
            out.add((ByteBuf) o);
        }
        try {
            assertThat(out).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(ByteBufUtil.getBytes(out.get(i))).as("ULPDU %d", i).isEqualTo(ulpdus.get(i));
            }
            read2.setByte(80016 + 2 - 65536, ~ulpdus.get(2)[0]);
            assertThat(out.get(2).getByte(out.get(2).readerIndex())).as("ULPDU 3 shares read 2's memory")
                    .isEqualTo((byte) ~ulpdus.get(2)[0]);
        } finally {
            out.forEach(ByteBuf::release);
            read2.release();
        }
        assertThat(decoder.finish()).isFalse();
    }

    @Test
    void onlyWellFilledReadsAreKeptAsTheyAre() {
        // A partial FPDU of 5000 octets joined with: a full 8 KiB read (kept, not copied); a
        // 100-octet read in a 64 KiB buffer (copied: a trickling peer must not pin big buffers);
        // and, for a small partial FPDU, a small read (copied: small messages stay in one buffer).
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        ByteBuf partial = alloc.directBuffer(5000).writeZero(5000);
        ByteBuf full = alloc.directBuffer(8192, 8192).writeZero(8192);
        full.retain();
        ByteBuf joined = org.iwarp4j.mpa.internal.FpduCumulator.INSTANCE.cumulate(alloc, partial, full);
        try {
            assertThat(joined).isInstanceOf(io.netty.buffer.CompositeByteBuf.class);
            assertThat(joined.readableBytes()).isEqualTo(5000 + 8192);
            full.setByte(0, 7);
            assertThat(joined.getByte(5000)).as("the read's own memory").isEqualTo((byte) 7);
        } finally {
            full.release();
        }
        ByteBuf trickle = alloc.directBuffer(65536).writeZero(100);
        ByteBuf joined2 = org.iwarp4j.mpa.internal.FpduCumulator.INSTANCE.cumulate(alloc, joined, trickle);
        assertThat(joined2.readableBytes()).isEqualTo(5000 + 8192 + 100);
        assertThat(trickle.refCnt()).as("the 64 KiB buffer is not kept").isZero();
        joined2.release();
        ByteBuf small = alloc.directBuffer(200).writeZero(200);
        ByteBuf joined3 = org.iwarp4j.mpa.internal.FpduCumulator.INSTANCE.cumulate(alloc,
                alloc.directBuffer(300).writeZero(300), small);
        assertThat(joined3).isNotInstanceOf(io.netty.buffer.CompositeByteBuf.class);
        assertThat(joined3.readableBytes()).isEqualTo(500);
        joined3.release();
    }

    @Test
    void everyReadSizeAndFpduSizeRoundTrips() {
        // MPA-R-037 across the join rules: small reads (copied joins), reads around 4 KiB, 64 KiB reads.
        for (boolean markers : new boolean[] {false, true}) {
            List<byte[]> ulpdus = new ArrayList<>();
            Random sizes = new Random(markers ? 7 : 8);
            for (int i = 0; i < 40; i++) {
                int size = i % 3 == 0 ? 64768 : i % 3 == 1 ? 1 + sizes.nextInt(1500) : 1 + sizes.nextInt(20000);
                ulpdus.add(random(size, i));
            }
            byte[] stream = encode(markers, ulpdus);
            for (int chunk : new int[] {1000, 4095, 4097, 65536, 100_000}) {
                EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(markers, true, 65535));
                Wire.feed(decoder, stream, chunk);
                List<byte[]> received = Wire.inbound(decoder);
                assertThat(received).as("markers %s, reads of %d", markers, chunk).hasSize(ulpdus.size());
                for (int i = 0; i < ulpdus.size(); i++) {
                    assertThat(received.get(i)).as("ULPDU %d, reads of %d", i, chunk).isEqualTo(ulpdus.get(i));
                }
                assertThat(decoder.finish()).isFalse();
            }
        }
    }
}
