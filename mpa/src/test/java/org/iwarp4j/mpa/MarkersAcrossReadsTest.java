package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.internal.MarkedCopy;
import org.junit.jupiter.api.Test;

/**
 * A marked FPDU that a socket read cut (RFC 5044 §4.3): the decoder checks the CRC over the
 * octets as received, markers included (MPA-R-030), and every FPDUPTR (MPA-R-014, MPA-R-017,
 * MPA-R-018), and delivers the ULPDU without its markers (MPA-R-022) whichever octet the cut fell
 * on, writing nothing outside the FPDU; a bad CRC or FPDUPTR leaves the reads as they were and
 * delivers nothing.
 */
class MarkersAcrossReadsTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final int ULPDU = 64768;

    /** FPDU 1 and 2 whole, then the first {@code tail} octets of FPDU 3 (incomplete, never decoded). */
    private static final class Stream {
        final List<byte[]> ulpdus = new ArrayList<>();
        final byte[] wire;
        final int fpdu2;
        final int fpdu3;

        Stream(int tail) {
            Random random = new Random(23);
            EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
            for (int i = 0; i < 3; i++) {
                byte[] u = new byte[ULPDU];
                random.nextBytes(u);
                ulpdus.add(u);
                encoder.writeOutbound(Wire.buf(u));
            }
            byte[] all = Wire.outbound(encoder);
            assertThat(encoder.finish()).isFalse();
            fpdu2 = MarkedCopy.wireLength(ULPDU, 0, true);
            fpdu3 = fpdu2 + MarkedCopy.wireLength(ULPDU, fpdu2, true);
            wire = Arrays.copyOf(all, fpdu3 + tail);
        }
    }

    private static ByteBuf read(byte[] wire, int from, int to) {
        return ALLOC.directBuffer(to - from, to - from).writeBytes(wire, from, to - from);
    }

    private static List<ByteBuf> inbound(EmbeddedChannel channel) {
        List<ByteBuf> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            out.add((ByteBuf) o);
        }
        return out;
    }

    /**
     * Cuts at every kind of place in FPDU 2 (in its first marker, just before and after one, inside
     * a piece, in the last marker before the CRC, in the CRC): the ULPDU comes out intact and the
     * octets around FPDU 2 (FPDU 1's CRC, the start of FPDU 3) are as
     * received.
     */
    @Test
    void aMarkedFpduCutByAReadHasItsMarkersRemovedAcrossTheJoin() {
        Stream s = new Stream(2000);
        List<Integer> cuts = new ArrayList<>();
        // Stream offsets of markers are multiples of 512; FPDU 2 starts at s.fpdu2.
        int m = (s.fpdu2 / 512 + 1) * 512;
        for (int d : new int[] {-1, 0, 1, 2, 3, 4, 5, 200, 511}) {
            cuts.add(m + 512 * 3 + d);
        }
        cuts.add(s.fpdu2 + 3000);
        cuts.add(s.fpdu2 + 60_000);
        int lastMarker = ((s.fpdu3 - 4) / 512) * 512;
        cuts.add(lastMarker + 2);
        cuts.add(s.fpdu3 - 2); // in FPDU 2's CRC
        for (int cut : cuts) {
            assertThat(cut).isGreaterThan(s.fpdu2 + 1024).isLessThan(s.fpdu3);
            ByteBuf read1 = read(s.wire, 0, cut);
            ByteBuf read2 = read(s.wire, cut, s.wire.length);
            read2.retain(); // inspected after decoding
            read1.retain();
            EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
            decoder.writeInbound(read1);
            decoder.writeInbound(read2);
            List<ByteBuf> out = inbound(decoder);
            try {
                assertThat(out).as("cut at %d", cut).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    assertThat(ByteBufUtil.getBytes(out.get(i))).as("ULPDU %d, cut at %d", i, cut)
                            .isEqualTo(s.ulpdus.get(i));
                }
                // FPDU 1's CRC (just before FPDU 2) and the start of FPDU 3 (just after) are untouched.
                assertThat(ByteBufUtil.getBytes(read1, s.fpdu2 - 4, 4))
                        .isEqualTo(Arrays.copyOfRange(s.wire, s.fpdu2 - 4, s.fpdu2));
                assertThat(ByteBufUtil.getBytes(read2, s.fpdu3 - cut, s.wire.length - s.fpdu3))
                        .isEqualTo(Arrays.copyOfRange(s.wire, s.fpdu3, s.wire.length));
            } finally {
                out.forEach(ByteBuf::release);
                read1.release();
                read2.release();
            }
            // FPDU 3 is incomplete: the connection ends inside it.
            Throwable end = catchThrowable(decoder::finishAndReleaseAll);
            assertThat(end).isInstanceOf(MpaException.class);
            assertThat(((MpaException) end).error()).isEqualTo(MpaError.CONNECTION_LOST);
        }
    }

    /** An FPDU that three reads hold (two joins, one 1031 octets inside it): intact. */
    @Test
    void aMarkedFpduInThreeReadsHasItsMarkersRemovedAcrossBothJoins() {
        Stream s = new Stream(0);
        for (int middle : new int[] {1031, 1536, 20_000}) {
            int cut1 = s.fpdu2 + 10_003;
            int cut2 = cut1 + middle;
            List<ByteBuf> reads = List.of(read(s.wire, 0, cut1), read(s.wire, cut1, cut2),
                    read(s.wire, cut2, s.wire.length));
            EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
            for (ByteBuf r : reads) {
                decoder.writeInbound(r.retain());
            }
            List<ByteBuf> out = inbound(decoder);
            try {
                assertThat(out).hasSize(2);
                assertThat(ByteBufUtil.getBytes(out.get(1))).as("middle read of %d", middle)
                        .isEqualTo(s.ulpdus.get(1));
            } finally {
                out.forEach(ByteBuf::release);
                reads.forEach(ByteBuf::release);
            }
            assertThat(decoder.finishAndReleaseAll()).isFalse();
        }
    }

    private static void expectErrorAcrossTheJoin(byte[] wire, int fpdu2, MpaError error, List<byte[]> ulpdus) {
        int cut = fpdu2 + 30_001;
        ByteBuf read1 = read(wire, 0, cut);
        ByteBuf read2 = read(wire, cut, wire.length);
        read1.retain();
        read2.retain();
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        try {
            decoder.writeInbound(read1);
            Throwable thrown = catchThrowable(() -> decoder.writeInbound(read2));
            assertThat(thrown).isInstanceOf(MpaException.class);
            assertThat(((MpaException) thrown).error()).isEqualTo(error);
            List<byte[]> delivered = Wire.inbound(decoder);
            assertThat(delivered).hasSize(1);
            assertThat(delivered.get(0)).isEqualTo(ulpdus.get(0));
            // The failed FPDU was checked as received and never changed: markers still in place.
            assertThat(ByteBufUtil.getBytes(read1, fpdu2, cut - fpdu2))
                    .isEqualTo(Arrays.copyOfRange(wire, fpdu2, cut));
            assertThat(ByteBufUtil.getBytes(read2, 0, wire.length - cut))
                    .isEqualTo(Arrays.copyOfRange(wire, cut, wire.length));
        } finally {
            read1.release();
            read2.release();
        }
        decoder.finishAndReleaseAll();
    }

    /** A bad CRC in an FPDU a read cut: CRC error (MPA-R-030), nothing of it delivered or moved. */
    @Test
    void aBadCrcAcrossTheJoinIsReportedAndNothingMoves() {
        Stream s = new Stream(0);
        byte[] wire = s.wire.clone();
        int at = s.fpdu2 + 40_001;
        assertThat(at % 512).isGreaterThan(4); // a ULPDU octet, not a marker
        wire[at] ^= 0x10;
        expectErrorAcrossTheJoin(wire, s.fpdu2, MpaError.CRC_ERROR, s.ulpdus);
    }

    /**
     * A wrong FPDUPTR (the CRC recomputed over it, as a peer that got it wrong would send) in an
     * FPDU a read cut: marker error (MPA-R-017), nothing of it delivered or moved.
     */
    @Test
    void aWrongFpduptrAcrossTheJoinIsReportedAndNothingMoves() {
        Stream s = new Stream(0);
        byte[] wire = s.wire.clone();
        int marker = ((s.fpdu2 + 50_000) / 512) * 512;
        wire[marker + 3] ^= 0x40; // FPDUPTR's low octet, above the two ignored bits
        CRC32C crc = new CRC32C();
        crc.update(wire, s.fpdu2, s.fpdu3 - 4 - s.fpdu2);
        int value = (int) crc.getValue();
        for (int i = 0; i < 4; i++) {
            wire[s.fpdu3 - 4 + i] = (byte) (value >>> (8 * i)); // least-significant octet first
        }
        expectErrorAcrossTheJoin(wire, s.fpdu2, MpaError.MARKER_ERROR, s.ulpdus);
    }
}
