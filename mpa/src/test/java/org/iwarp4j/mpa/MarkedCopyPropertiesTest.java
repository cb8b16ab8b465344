package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.iwarp4j.mpa.internal.MarkedCopy;

/**
 * The copies of the marker path ({@link MarkedCopy}: by memory address, or piece by piece through
 * the ByteBufs for heap and composite buffers) against the algorithm they replaced, kept here as
 * the reference: the encoder writes the reference's octets,
 * FPDU by FPDU across the stream (markers, FPDUPTRs, PAD, CRC; RFC 5044 §4.3, §4.4, MPA-R-022), and
 * the decoder, fed the reference's stream cut anywhere (reads joined as composites, heap or
 * direct), delivers the same ULPDUs and reacts to a bad FPDUPTR or a bad CRC as before (MPA-R-014,
 * MPA-R-017, MPA-R-018, MPA-R-030).
 */
class MarkedCopyPropertiesTest {

    /** The reference: FPDUs built octet by octet as the encoder did before, with running stream offset. */
    static final class ReferenceEncoder {
        final boolean markers;
        final boolean crc;
        long streamOffset;
        /** Stream offset where each FPDU (its leading marker included) ends. */
        final List<Long> ends = new ArrayList<>();

        ReferenceEncoder(boolean markers, boolean crc) {
            this.markers = markers;
            this.crc = crc;
        }

        byte[] fpdu(byte[] ulpdu) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int length = ulpdu.length;
            int pad = MpaFrameEncoder.padLength(length);
            long pos = streamOffset;
            if (markers && pos % 512 == 0) {
                out.writeBytes(new byte[4]);
                pos += 4;
            }
            long fpduStart = pos;
            out.write(length >>> 8);
            out.write(length);
            pos += 2;
            int taken = 0;
            while (taken < length) {
                if (markers && pos % 512 == 0) {
                    marker(out, pos - fpduStart);
                    pos += 4;
                    continue;
                }
                long next = markers ? pos + 512 - pos % 512 : Long.MAX_VALUE;
                int chunk = (int) Math.min(length - taken, next - pos);
                out.write(ulpdu, taken, chunk);
                taken += chunk;
                pos += chunk;
            }
            out.writeBytes(new byte[pad]);
            pos += pad;
            if (markers && pos % 512 == 0) {
                marker(out, pos - fpduStart);
                pos += 4;
            }
            byte[] body = out.toByteArray();
            int value = 0;
            if (crc) {
                CRC32C c = new CRC32C();
                c.update(body);
                value = (int) c.getValue();
            }
            out.write(value);
            out.write(value >>> 8);
            out.write(value >>> 16);
            out.write(value >>> 24);
            streamOffset = pos + 4;
            ends.add(streamOffset);
            return out.toByteArray();
        }

        private static void marker(ByteArrayOutputStream out, long fpduptr) {
            out.write(0);
            out.write(0);
            out.write((int) (fpduptr >>> 8));
            out.write((int) fpduptr);
        }
    }

    @Property(tries = 60)
    void encoderWritesTheReferenceOctets(@ForAll("lengths") List<Integer> lengths, @ForAll boolean markers,
                                         @ForAll boolean crc, @ForAll @IntRange(max = 40) int headerLength,
                                         @ForAll boolean composite, @ForAll long seed) {
        Random random = new Random(seed);
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        ReferenceEncoder reference = new ReferenceEncoder(markers, crc);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < lengths.size(); i++) {
            byte[] ulpdu = new byte[lengths.get(i)];
            random.nextBytes(ulpdu);
            expected.writeBytes(reference.fpdu(ulpdu));
            int h = Math.min(headerLength, ulpdu.length);
            if (i % 2 == 0) {
                // As RDMAP sends: header octets and a payload buffer (copied when markers are on).
                byte[] header = java.util.Arrays.copyOf(ulpdu, h);
                encoder.writeOutbound(OutboundUlpdu.of(header, body(ulpdu, h, composite, random)));
            } else {
                encoder.writeOutbound(body(ulpdu, 0, composite, random));
            }
        }
        assertThat(Wire.outbound(encoder)).isEqualTo(expected.toByteArray());
        assertThat(encoder.finish()).isFalse();
    }

    /** {@code ulpdu[from..]} as a pooled direct buffer, or as a composite of a heap and a direct part. */
    private static ByteBuf body(byte[] ulpdu, int from, boolean composite, Random random) {
        int n = ulpdu.length - from;
        if (!composite || n < 2) {
            return ByteBufAllocator.DEFAULT.directBuffer(n).writeBytes(ulpdu, from, n);
        }
        int cut = 1 + random.nextInt(n - 1);
        CompositeByteBuf parts = ByteBufAllocator.DEFAULT.compositeBuffer();
        parts.addComponent(true, ByteBufAllocator.DEFAULT.heapBuffer(cut).writeBytes(ulpdu, from, cut));
        parts.addComponent(true, ByteBufAllocator.DEFAULT.directBuffer(n - cut).writeBytes(ulpdu, from + cut, n - cut));
        return parts;
    }

    enum Damage { NONE, FPDUPTR, FPDUPTR_LOW_BITS, MARKER_RESERVED, ULPDU }

    @Property(tries = 80)
    void decoderReadsTheReferenceStreamCutAnywhere(@ForAll("lengths") List<Integer> lengths, @ForAll boolean crc,
                                                   @ForAll("cuts") List<Integer> cuts, @ForAll boolean heap,
                                                   @ForAll Damage damage, @ForAll long seed) {
        Random random = new Random(seed);
        ReferenceEncoder reference = new ReferenceEncoder(true, crc);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<byte[]> sent = new ArrayList<>();
        for (int length : lengths) {
            byte[] ulpdu = new byte[length];
            random.nextBytes(ulpdu);
            sent.add(ulpdu);
            wire.writeBytes(reference.fpdu(ulpdu));
        }
        byte[] stream = wire.toByteArray();

        // Damage one marker (at 0, 512, 1024, ...: two reserved octets, then FPDUPTR) or one ULPDU octet.
        long at = -1;
        if (damage == Damage.ULPDU) {
            int owner = random.nextInt(sent.size());
            long start = owner == 0 ? 0 : reference.ends.get(owner - 1);
            long first = start + (start % 512 == 0 ? 4 : 0) + 2;
            long last = reference.ends.get(owner) - 11; // before PAD, a marker after it, the CRC
            for (int tries = 0; tries < 20 && last > first && at < 0; tries++) {
                long p = first + (long) (random.nextDouble() * (last - first));
                at = p % 512 < 4 ? -1 : p;
            }
            if (at >= 0) {
                stream[(int) at] ^= (byte) (1 << random.nextInt(8));
            }
        } else if (damage != Damage.NONE) {
            at = 512L * random.nextInt((stream.length - 1) / 512 + 1);
            int index = (int) at + switch (damage) {
                case FPDUPTR -> 2;  // the high octet of FPDUPTR: any bit counts
                case FPDUPTR_LOW_BITS -> 3;
                default -> random.nextInt(2);
            };
            int bit = damage == Damage.FPDUPTR_LOW_BITS ? random.nextInt(2) : random.nextInt(8);
            stream[index] ^= (byte) (1 << bit);
        }
        int owner = -1;
        if (at >= 0) {
            owner = 0;
            while (reference.ends.get(owner) <= at) {
                owner++;
            }
        }
        MpaError expected = null;
        if (owner >= 0 && crc) {
            expected = MpaError.CRC_ERROR; // checked first; it covers the markers (RFC 5044 §6.4)
        } else if (owner >= 0 && damage == Damage.FPDUPTR) {
            expected = MpaError.MARKER_ERROR;
        }

        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, crc, 0xFFFF));
        MpaException error = null;
        int offset = 0;
        for (int i = 0; offset < stream.length; i++) {
            int n = Math.min(cuts.get(i % cuts.size()), stream.length - offset);
            ByteBuf read = heap ? Unpooled.buffer(n) : ByteBufAllocator.DEFAULT.directBuffer(n);
            read.writeBytes(stream, offset, n);
            offset += n;
            try {
                decoder.writeInbound(read);
            } catch (Exception e) { // EmbeddedChannel rethrows what reached the pipeline's end
                assertThat(e).isInstanceOf(MpaException.class);
                error = (MpaException) e;
                break;
            }
        }
        List<byte[]> received = Wire.inbound(decoder);
        if (expected == null) {
            assertThat(error).isNull();
            assertThat(received).hasSize(sent.size());
            for (int i = 0; i < sent.size(); i++) {
                if (i == owner && damage == Damage.ULPDU) {
                    assertThat(received.get(i)).isNotEqualTo(sent.get(i)); // no CRC: MPA cannot tell
                } else {
                    assertThat(received.get(i)).isEqualTo(sent.get(i));
                }
            }
        } else {
            assertThat(error).isNotNull();
            assertThat(error.error()).isEqualTo(expected);
            assertThat(received).hasSize(owner);
            for (int i = 0; i < owner; i++) {
                assertThat(received.get(i)).isEqualTo(sent.get(i));
            }
        }
        decoder.finishAndReleaseAll();
    }

    /** Every marker of the stream in turn gets a wrong FPDUPTR: each one is checked (MPA-R-017, MPA-R-018). */
    @Property(tries = 25)
    void everyWrongFpduptrIsFound(@ForAll @net.jqwik.api.constraints.Size(min = 1, max = 6)
                                  List<@IntRange(max = 2500) Integer> lengths, @ForAll boolean crc,
                                  @ForAll boolean heap, @ForAll @IntRange(min = 1, max = 5000) int cut,
                                  @ForAll long seed) {
        Random random = new Random(seed);
        ReferenceEncoder reference = new ReferenceEncoder(true, crc);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        List<byte[]> sent = new ArrayList<>();
        for (int length : lengths) {
            byte[] ulpdu = new byte[length];
            random.nextBytes(ulpdu);
            sent.add(ulpdu);
            wire.writeBytes(reference.fpdu(ulpdu));
        }
        byte[] clean = wire.toByteArray();
        for (int at = 0; at < clean.length; at += 512) {
            byte[] stream = clean.clone();
            int bit = 2 + random.nextInt(14); // not the two low bits, which are ignored
            stream[at + 2 + (bit < 8 ? 1 : 0)] ^= (byte) (1 << (bit % 8));
            int owner = 0;
            while (reference.ends.get(owner) <= at) {
                owner++;
            }
            EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, crc, 0xFFFF));
            MpaException error = null;
            for (int offset = 0; offset < stream.length && error == null; offset += cut) {
                int n = Math.min(cut, stream.length - offset);
                ByteBuf read = heap ? Unpooled.buffer(n) : ByteBufAllocator.DEFAULT.directBuffer(n);
                try {
                    decoder.writeInbound(read.writeBytes(stream, offset, n));
                } catch (Exception e) {
                    assertThat(e).isInstanceOf(MpaException.class);
                    error = (MpaException) e;
                }
            }
            assertThat(error).as("marker at %d", at).isNotNull();
            assertThat(error.error()).isEqualTo(crc ? MpaError.CRC_ERROR : MpaError.MARKER_ERROR);
            List<byte[]> received = Wire.inbound(decoder);
            assertThat(received).hasSize(owner);
            for (int i = 0; i < owner; i++) {
                assertThat(received.get(i)).isEqualTo(sent.get(i));
            }
            decoder.finishAndReleaseAll();
        }
    }

    @Provide
    Arbitrary<List<Integer>> lengths() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0, 3000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(3000, MpaConstants.MAX_ULPDU)))
                .list().ofMinSize(1).ofMaxSize(8);
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 1100)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1024, 70000)))
                .list().ofMinSize(1).ofMaxSize(6);
    }
}
