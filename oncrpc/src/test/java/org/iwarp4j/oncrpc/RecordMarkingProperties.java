package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Record marking (RFC 5531 §11) under random fragmentation and random TCP chunking: whatever
 * fragment boundaries a sender chooses and however TCP cuts the stream, the decoder yields
 * exactly the records that were sent.
 */
class RecordMarkingProperties {

    @Provide
    Arbitrary<List<byte[]>> records() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(3000).list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<byte[]>> smallRecords() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(600).list().ofMinSize(1).ofMaxSize(8);
    }

    /** Frames each record with fragment boundaries drawn from {@code random} (zero-length fragments included). */
    private static byte[] frame(List<byte[]> records, Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] record : records) {
            int offset = 0;
            do {
                int fragment = random.nextInt(5) == 0 ? 0 : random.nextInt(record.length - offset + 1);
                boolean last = random.nextInt(3) == 0 || offset + fragment == record.length;
                if (offset + fragment < record.length && last) {
                    fragment = record.length - offset;
                }
                int mark = (last ? RpcConstants.LAST_FRAGMENT : 0) | fragment;
                out.write(mark >>> 24);
                out.write(mark >>> 16);
                out.write(mark >>> 8);
                out.write(mark);
                out.write(record, offset, fragment);
                offset += fragment;
                if (last) {
                    break;
                }
            } while (true);
        }
        return out.toByteArray();
    }

    private static List<byte[]> decodeInChunks(byte[] stream, Random random, int maxChunk) {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(3000));
        for (int offset = 0; offset < stream.length; ) {
            int chunk = Math.min(stream.length - offset, 1 + random.nextInt(maxChunk));
            ch.writeInbound(Unpooled.copiedBuffer(stream, offset, chunk));
            offset += chunk;
        }
        List<byte[]> decoded = new ArrayList<>();
        ByteBuf record;
        while ((record = ch.readInbound()) != null) {
            decoded.add(ByteBufUtil.getBytes(record));
            record.release();
        }
        assertThat(ch.finish()).isFalse();
        return decoded;
    }

    @Property(tries = 200)
    void randomFragmentsAndRandomChunksGiveBackTheRecords(@ForAll("records") List<byte[]> records,
                                                          @ForAll long seed,
                                                          @ForAll @IntRange(min = 1, max = 4000) int maxChunk) {
        Random random = new Random(seed);
        List<byte[]> decoded = decodeInChunks(frame(records, random), random, maxChunk);
        assertThat(decoded).containsExactlyElementsOf(records);
    }

    @Property(tries = 100)
    void ourEncoderAtAnyFragmentSizeRoundTrips(@ForAll("smallRecords") List<byte[]> records,
                                              @ForAll @IntRange(min = 1, max = 700) int maxFragment,
                                              @ForAll long seed) {
        EmbeddedChannel encoder = new EmbeddedChannel(new RecordMarkingEncoder(maxFragment));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (byte[] record : records) {
            encoder.writeOutbound(XdrMessage.of(Unpooled.wrappedBuffer(record)));
            ByteBuf b;
            while ((b = encoder.readOutbound()) != null) {
                assertThat(b.readableBytes()).isLessThanOrEqualTo(Math.max(4, maxFragment));
                wire.writeBytes(ByteBufUtil.getBytes(b));
                b.release();
            }
        }
        encoder.finish();
        assertThat(decodeInChunks(wire.toByteArray(), new Random(seed), 1500)).containsExactlyElementsOf(records);
    }

    @Property(tries = 50)
    void aRecordOverTheLimitNeverYieldsARecord(@ForAll @Size(min = 3001, max = 5000) byte[] record, @ForAll long seed) {
        byte[] stream = frame(List.of(record), new Random(seed));
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(3000));
        boolean refused = false;
        for (int offset = 0; offset < stream.length && ch.isOpen(); offset += 700) {
            try {
                ch.writeInbound(Unpooled.copiedBuffer(stream, offset, Math.min(700, stream.length - offset)));
            } catch (io.netty.handler.codec.TooLongFrameException e) {
                refused = true;
            }
        }
        assertThat(refused).isTrue();
        assertThat(ch.inboundMessages()).isEmpty();
        assertThat(ch.isOpen()).isFalse();
    }
}
