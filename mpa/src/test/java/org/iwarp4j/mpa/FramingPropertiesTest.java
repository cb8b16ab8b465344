package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random ULPDU sequences x random TCP chunking x markers on/off x CRC on/off: what the encoder
 * writes, cut anywhere, decodes to exactly the ULPDUs sent, in the order sent (MPA-R-001, MPA-R-003,
 * MPA-R-007, MPA-R-022, MPA-R-037, MPA-R-040, MPA-R-078), each once and with its boundaries
 * (DDP-R-004, DDP-R-011). Different ULPDU lengths put FPDU starts,
 * and so markers, at every offset in the FPDU.
 */
class FramingPropertiesTest {

    @Property(tries = 200)
    void whatIsSentIsWhatIsReceived(@ForAll @Size(max = 24) List<@IntRange(max = 3000) Integer> lengths,
                                    @ForAll boolean markers, @ForAll boolean crc,
                                    @ForAll("chunkings") List<Integer> chunking, @ForAll long seed) {
        Random random = new Random(seed);
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(markers, crc, 0xFFFF));
        byte[][] sent = new byte[lengths.size()][];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = new byte[lengths.get(i)];
            random.nextBytes(sent[i]);
            encoder.writeOutbound(Wire.buf(sent[i]));
        }
        byte[] stream = Wire.outbound(encoder);

        // At most ~2000 reads per try: under PARANOID leak tracking every buffer costs a stack trace.
        int floor = (stream.length + 1999) / 2000;
        int offset = 0;
        for (int i = 0; offset < stream.length; i++) {
            int n = Math.min(Math.max(floor, chunking.get(i % chunking.size())), stream.length - offset);
            ByteBuf piece = ByteBufAllocator.DEFAULT.buffer(n).writeBytes(stream, offset, n);
            decoder.writeInbound(piece);
            offset += n;
        }
        List<byte[]> received = Wire.inbound(decoder);
        assertThat(received).hasSize(sent.length);
        for (int i = 0; i < sent.length; i++) {
            assertThat(received.get(i)).isEqualTo(sent[i]);
        }
        assertThat(encoder.finish()).isFalse();
        assertThat(decoder.finish()).isFalse();
    }

    @Property(tries = 30)
    void largestUlpdusRoundTripWithMarkers(@ForAll @IntRange(min = 60000, max = MpaConstants.MAX_ULPDU) int length,
                                           @ForAll @IntRange(min = 61, max = 9000) int chunk, @ForAll boolean crc) {
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(true, crc, false));
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, crc, 0xFFFF));
        byte[] ulpdu = new byte[length];
        new Random(length).nextBytes(ulpdu);
        encoder.writeOutbound(Wire.buf(ulpdu));
        encoder.writeOutbound(Wire.buf(ulpdu));
        Wire.feed(decoder, Wire.outbound(encoder), chunk);
        List<byte[]> received = Wire.inbound(decoder);
        assertThat(received).hasSize(2);
        assertThat(received.get(0)).isEqualTo(ulpdu);
        assertThat(received.get(1)).isEqualTo(ulpdu);
        assertThat(encoder.finish()).isFalse();
        assertThat(decoder.finish()).isFalse();
    }

    @Provide
    Arbitrary<List<Integer>> chunkings() {
        return Arbitraries.oneOf(
                Arbitraries.just(List.of(1)),
                Arbitraries.integers().between(1, 7).list().ofMinSize(1).ofMaxSize(10),
                Arbitraries.integers().between(1, 1500).list().ofMinSize(1).ofMaxSize(10),
                Arbitraries.integers().between(1, 70000).list().ofMinSize(1).ofMaxSize(3));
    }
}
