package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.iwarp4j.mpa.internal.FpduSlabs;
import org.iwarp4j.mpa.internal.MarkedCopy;
import org.junit.jupiter.api.Test;

/**
 * The memory of the markers path: FPDU buffers cut from slabs that are reused only once every
 * FPDU cut from them was released, never more than the bound; ULPDUs past the queue limit wait
 * unframed and follow in order; and the receive side, which removes markers in the receive buffer
 * itself, leaves a read-only buffer alone (RFC 5044 §4.3, MPA-R-022).
 */
class FpduSlabsTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @Test
    void aSlabIsReusedOnlyWhenEveryFpduCutFromItWasReleased() {
        FpduSlabs slabs = new FpduSlabs();
        int length = 65_300;
        List<ByteBuf> first = new ArrayList<>();
        for (int i = 0; i < FpduSlabs.SLAB_SIZE / length; i++) {
            ByteBuf fpdu = slabs.take(ALLOC, length);
            assertThat(fpdu.readableBytes()).isZero();
            assertThat(fpdu.writableBytes()).isEqualTo(length);
            assertThat(fpdu.maxCapacity()).isEqualTo(length);
            first.add(fpdu);
        }
        long firstAddress = first.get(0).memoryAddress();
        for (int i = 1; i < first.size(); i++) {
            assertThat(first.get(i).memoryAddress()).isEqualTo(firstAddress + (long) i * length);
        }
        // The slab is full and one of its FPDUs is still queued: a second slab.
        for (int i = 1; i < first.size(); i++) {
            first.get(i).release();
        }
        ByteBuf second = slabs.take(ALLOC, length);
        assertThat(slabs.slabs()).isEqualTo(2);
        long secondAddress = second.memoryAddress();
        assertThat(secondAddress >= firstAddress && secondAddress < firstAddress + FpduSlabs.SLAB_SIZE)
                .as("second slab outside the first").isFalse();
        first.get(0).release();
        List<ByteBuf> rest = new ArrayList<>();
        for (int i = 1; i < FpduSlabs.SLAB_SIZE / length; i++) {
            rest.add(slabs.take(ALLOC, length));
        }
        // The second slab is full; the first is free again: it is cut from, from its start.
        ByteBuf again = slabs.take(ALLOC, length);
        assertThat(again.memoryAddress()).isEqualTo(firstAddress);
        assertThat(slabs.slabs()).isEqualTo(2);
        again.release();
        second.release();
        rest.forEach(ByteBuf::release);
        slabs.release();
        assertThat(slabs.slabs()).isZero();
    }

    @Test
    void atMostMaxSlabsAreKeptAndAQueuedFpduOutlivesItsSlabsRelease() {
        FpduSlabs slabs = new FpduSlabs();
        List<ByteBuf> queued = new ArrayList<>();
        for (int i = 0; i < FpduSlabs.MAX_SLABS + 3; i++) {
            queued.add(slabs.take(ALLOC, FpduSlabs.SLAB_SIZE).writeLong(i)); // one FPDU fills a slab
            assertThat(slabs.slabs()).isLessThanOrEqualTo(FpduSlabs.MAX_SLABS);
        }
        slabs.release();
        for (int i = 0; i < queued.size(); i++) {
            assertThat(queued.get(i).refCnt()).isEqualTo(1);
            assertThat(queued.get(i).getLong(0)).isEqualTo(i);
            queued.get(i).release();
        }
    }

    @Test
    void largerThanASlabIsAllocatedOnItsOwn() {
        FpduSlabs slabs = new FpduSlabs();
        ByteBuf big = slabs.take(ALLOC, FpduSlabs.SLAB_SIZE + 4);
        assertThat(big.writableBytes()).isEqualTo(FpduSlabs.SLAB_SIZE + 4);
        assertThat(slabs.slabs()).isZero();
        big.release();
    }

    /** Many FPDUs through an encoder with markers: the octets equal MarkedCopy's own buffers'. */
    @Test
    void slabFpdusCarryTheSameOctets() {
        Random random = new Random(7);
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        long offset = 0;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        for (int i = 0; i < 40; i++) {
            byte[] ulpdu = new byte[random.nextInt(MpaConstants.MAX_ULPDU + 1)];
            random.nextBytes(ulpdu);
            ByteBuf expected = MarkedCopy.encode(ALLOC, new byte[0], Unpooled.wrappedBuffer(ulpdu), offset, true, crc);
            offset += expected.readableBytes();
            encoder.writeOutbound(ALLOC.directBuffer(ulpdu.length).writeBytes(ulpdu));
            assertThat(Wire.outbound(encoder)).isEqualTo(Wire.bytes(expected));
        }
        assertThat(encoder.finish()).isFalse();
    }

    /** A read-only receive buffer is not written: its ULPDU is copied out from between the markers. */
    @Test
    void readOnlyReceiveBufferIsLeftAsItWas() {
        Random random = new Random(11);
        byte[] ulpdu = new byte[5000];
        random.nextBytes(ulpdu);
        ByteBuf fpdu = MarkedCopy.encode(ALLOC, new byte[0], Unpooled.wrappedBuffer(ulpdu), 0, true,
                new java.util.zip.CRC32C());
        byte[] wire = new byte[fpdu.readableBytes()];
        fpdu.getBytes(0, wire);
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        decoder.writeInbound(fpdu.retain().asReadOnly());
        assertThat(Wire.inbound(decoder)).containsExactly(ulpdu);
        byte[] after = new byte[fpdu.readableBytes()];
        fpdu.getBytes(0, after);
        assertThat(after).isEqualTo(wire);
        fpdu.release();
        assertThat(decoder.finish()).isFalse();
    }

    /**
     * A writable direct receive buffer has its markers removed in place; the ULPDU is its slice.
     * Where Netty runs without {@code sun.misc.Unsafe} (Java 25 by default) the ULPDU is a copy
     * with the same octets.
     */
    @Test
    void writableReceiveBufferHasItsMarkersRemovedInPlace() {
        Random random = new Random(13);
        byte[] ulpdu = new byte[5000];
        random.nextBytes(ulpdu);
        ByteBuf fpdu = MarkedCopy.encode(ALLOC, new byte[0], Unpooled.wrappedBuffer(ulpdu), 0, true,
                new java.util.zip.CRC32C());
        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        decoder.writeInbound(fpdu.retain());
        ByteBuf delivered = decoder.readInbound();
        byte[] got = new byte[delivered.readableBytes()];
        delivered.getBytes(delivered.readerIndex(), got);
        boolean inPlace = delivered.hasMemoryAddress()
                && delivered.memoryAddress() == fpdu.memoryAddress() + 4 + 2; // leading marker, length
        delivered.release();
        fpdu.release();
        assertThat(got).isEqualTo(ulpdu);
        assertThat(inPlace).isEqualTo(MarkedCopy.removesInPlaceInDirectMemory());
        assertThat(decoder.finish()).isFalse();
    }

    /**
     * 40 ULPDUs of 64768 octets written without a flush: the encoder frames them only up to its
     * queue limit, the rest wait unframed; the flush lets them all go, the stream octet for octet
     * the reference's (markers, FPDUPTRs, CRCs) and every write succeeds.
     */
    @Test
    void pastTheQueueLimitUlpdusWaitUnframedAndFollowInOrder() {
        Random random = new Random(17);
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        MarkedCopyPropertiesTest.ReferenceEncoder reference = new MarkedCopyPropertiesTest.ReferenceEncoder(true, true);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] ulpdu = new byte[MpaConstants.MAX_ULPDU];
            random.nextBytes(ulpdu);
            expected.writeBytes(reference.fpdu(ulpdu));
            if (i % 2 == 0) { // as RDMAP sends: header octets and the payload
                byte[] header = java.util.Arrays.copyOf(ulpdu, 28);
                ByteBuf payload = ALLOC.directBuffer(ulpdu.length - 28).writeBytes(ulpdu, 28, ulpdu.length - 28);
                writes.add(channel.write(OutboundUlpdu.of(header, payload)));
            } else {
                writes.add(channel.write(ALLOC.directBuffer(ulpdu.length).writeBytes(ulpdu)));
            }
        }
        long queued = channel.unsafe().outboundBuffer().totalPendingWriteBytes();
        int lowWaterMark = channel.config().getWriteBufferLowWaterMark();
        assertThat(queued).isGreaterThan(MpaFrameEncoder.MARKED_QUEUE_LIMIT)
                .isLessThanOrEqualTo(MpaFrameEncoder.MARKED_QUEUE_LIMIT + lowWaterMark + 2L * 66_000);
        assertThat(writes.get(writes.size() - 1).isDone()).isFalse();
        channel.flush();
        assertThat(Wire.outbound(channel)).isEqualTo(expected.toByteArray());
        for (ChannelFuture write : writes) {
            assertThat(write.isSuccess()).isTrue();
        }
        assertThat(channel.finish()).isFalse();
    }

    /**
     * The slabs go when the channel closes, not only when the pipeline is torn down (a task the
     * event loop runs later, which an application that ends its event loop early may never let
     * run). Seen from a listener of the close future, which runs within the close: the encoder
     * keeps no slab; after the teardown every ULPDU held unframed has failed and everything the
     * encoder allocated is released.
     */
    @Test
    void theSlabsGoWhenTheChannelCloses() {
        RecordingAllocator alloc = new RecordingAllocator();
        MpaFrameEncoder encoder = new MpaFrameEncoder(true, true, false);
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        channel.config().setAllocator(alloc);
        List<ChannelFuture> writes = new ArrayList<>();
        for (int i = 0; i < 24; i++) { // past the queue limit: the last ones are held unframed
            writes.add(channel.write(Unpooled.directBuffer(MpaConstants.MAX_ULPDU).writeZero(MpaConstants.MAX_ULPDU)));
        }
        assertThat(writes.get(writes.size() - 1).isDone()).as("a ULPDU held unframed").isFalse();
        assertThat(encoder.keptSlabs()).isPositive();
        List<Integer> slabsAtClose = new ArrayList<>();
        channel.closeFuture().addListener(closed -> slabsAtClose.add(encoder.keptSlabs()));

        channel.close();

        assertThat(slabsAtClose).containsExactly(0);
        assertThat(writes.get(writes.size() - 1).cause()).isInstanceOf(ClosedChannelException.class);
        assertThat(writes).allSatisfy(write -> assertThat(write.isDone()).isTrue());
        assertThat(alloc.direct).isNotEmpty().allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
        assertThat(channel.finish()).isFalse();
    }
}
