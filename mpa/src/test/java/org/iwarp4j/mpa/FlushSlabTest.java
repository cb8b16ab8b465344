package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.IntPredicate;
import org.iwarp4j.mpa.internal.FlushSlab;
import org.junit.jupiter.api.Test;

/**
 * The small buffers {@link MpaFrameEncoder} writes for large FPDUs without markers (ULPDU_Length
 * and header after the previous FPDU's PAD and CRC, and a trailer written alone at a flush) are
 * slices of one allocation per flush, not one allocation each; the encoder keeps no memory between
 * flushes or after a close. The octets stay those of FPDUs framed one by one (RFC 5044 §4,
 * MPA-R-001, MPA-R-007; {@link HeldTrailerTest} compares them over many shapes).
 */
class FlushSlabTest {

    /** A ULPDU whose FPDU needs no PAD: 2 + 18 + 8192 is a multiple of 4; its trailer is the CRC alone. */
    private static final int HEADER = 18;
    private static final int PAYLOAD = 8192;
    /** The first FPDU's small buffer: ULPDU_Length and header. */
    private static final int FIRST_HEAD = 2 + HEADER;
    /** Every later one: the previous CRC, ULPDU_Length and header. */
    private static final int NEXT_HEAD = 4 + 2 + HEADER;

    @Test
    void theSmallBuffersOfOneFlushAreConsecutiveSlicesOfOneAllocation() {
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = channel(alloc);
        EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        Random random = new Random(5041);
        for (int flush = 0; flush < 2; flush++) {
            int before = alloc.direct.size();
            for (int i = 0; i < 5; i++) {
                writeToBoth(channel, reference, random, PAYLOAD + i, channel.newPromise()); // PAD 0, 3, 2, 1, 0
            }
            channel.flush();
            assertThat(channel.isOpen()).isTrue();
            assertThat(alloc.direct.size() - before).as("allocations in flush %d", flush).isEqualTo(1);
            assertThat(((MpaFrameEncoder) channel.pipeline().first()).holdsHeadSlab()).isFalse();
            drainAndCheck(channel, reference, entries -> {
                assertThat(entries).hasSize(2 * 5 + 1);
                ByteBuf slab = root(entries.get(0));
                assertThat(slab.capacity()).isEqualTo(FlushSlab.SLAB_SIZE);
                assertConsecutiveSlices(slab, entries, i -> i % 2 == 0); // the heads and the last trailer
                return slab;
            });
        }
        finishBoth(channel, reference);
    }

    /**
     * A message over one MULPDU ends in a short FPDU (a 64 KiB Send is one of about 64 KiB and one
     * of about 100 octets): its copy, with the large FPDU's held CRC in front, is cut from the
     * slab the large FPDU's head opened, not allocated on its own.
     */
    @Test
    void aShortFpduAfterALargeOneIsCutFromTheSameSlab() {
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = channel(alloc);
        EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        Random random = new Random(5044);
        int messages = 5;
        for (int i = 0; i < messages; i++) {
            // As RDMAP writes a message: only its last FPDU carries the caller's promise, so the
            // large FPDU's held trailer goes in front of the short FPDU, in the same buffer.
            writeToBoth(channel, reference, random, PAYLOAD, channel.voidPromise());
            writeToBoth(channel, reference, random, 60 + i, channel.newPromise()); // PAD 0, 3, 2, 1, 0
        }
        channel.flush();
        assertThat(alloc.direct).as("one slab for the heads and the short FPDUs").hasSize(1);
        drainAndCheck(channel, reference, entries -> {
            // Per message: the head, the payload, the short FPDU (which ends with its own CRC: no trailer at the flush).
            assertThat(entries).hasSize(3 * messages);
            ByteBuf slab = root(alloc.lastDirect());
            assertConsecutiveSlices(slab, entries, i -> i % 3 != 1); // not the payloads, which are not copied
            for (int i = 2; i < entries.size(); i += 3) {
                int ulpdu = HEADER + 60 + i / 3;
                assertThat(entries.get(i).readableBytes()).as("the held CRC, then the short FPDU")
                        .isEqualTo(4 + 2 + ulpdu + MpaFrameEncoder.padLength(ulpdu) + 4);
            }
            return slab;
        });
        finishBoth(channel, reference);
    }

    /**
     * Small FPDUs with no large one before them in the flush (a latency test's messages) open no
     * slab: each is one buffer of its own size, as a slab of 2 KiB per flush would cost more.
     */
    @Test
    void shortFpdusAloneAreAllocatedOneByOne() {
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = channel(alloc);
        EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        for (int i = 0; i < 3; i++) {
            byte[] ulpdu = new byte[HEADER + 8 + i];
            new Random(i).nextBytes(ulpdu);
            channel.write(Wire.buf(ulpdu));
            reference.writeOutbound(Wire.buf(ulpdu));
        }
        channel.flush();
        assertThat(((MpaFrameEncoder) channel.pipeline().first()).holdsHeadSlab()).isFalse();
        assertThat(alloc.direct).hasSize(3);
        List<ByteBuf> entries = drain(channel);
        try {
            assertThat(entries).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(root(entries.get(i))).isSameAs(root(alloc.direct.get(i)));
                assertThat(alloc.direct.get(i).capacity()).isEqualTo(entries.get(i).readableBytes());
            }
            assertThat(Wire.concat(entries.stream().map(ByteBufUtil::getBytes).toArray(byte[][]::new)))
                    .isEqualTo(Wire.outbound(reference));
        } finally {
            entries.forEach(ByteBuf::release);
        }
        finishBoth(channel, reference);
    }

    @Test
    void aFullSlabIsLetGoAndTheNextBufferStartsAnotherAndNoneCrossesTwo() {
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = channel(alloc);
        // 20 + 84 * 24 = 2036 octets fill the first slab; the 86th head starts the second.
        int fpdus = 100;
        ByteBuf payload = Wire.buf(new byte[PAYLOAD]);
        for (int i = 0; i < fpdus; i++) {
            channel.write(OutboundUlpdu.of(new byte[HEADER], payload.retainedSlice()));
        }
        channel.flush();
        assertThat(alloc.direct).hasSize(2);
        List<ByteBuf> entries = drain(channel);
        try {
            assertThat(entries).hasSize(2 * fpdus + 1);
            ByteBuf first = root(entries.get(0));
            ByteBuf second = root(entries.get(2 * 85));
            assertThat(second).isNotSameAs(first);
            for (int i = 0; i < entries.size(); i += 2) {
                ByteBuf small = entries.get(i);
                int expected = i == 0 ? FIRST_HEAD : i == 2 * fpdus ? 4 : NEXT_HEAD;
                assertThat(small.readableBytes()).isEqualTo(expected);
                assertThat(root(small)).isSameAs(i < 2 * 85 ? first : second);
            }
            entries.forEach(ByteBuf::release);
            entries.clear();
            assertThat(first.refCnt()).isZero();
            assertThat(second.refCnt()).isZero();
        } finally {
            entries.forEach(ByteBuf::release);
            payload.release();
        }
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aCloseBeforeTheFlushFailsTheFpdusAndLetsTheSlabGo() {
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = channel(alloc);
        MpaFrameEncoder encoder = (MpaFrameEncoder) channel.pipeline().first();
        List<ChannelFuture> futures = new ArrayList<>();
        List<ByteBuf> payloads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuf payload = Wire.buf(new byte[PAYLOAD]);
            payloads.add(payload);
            futures.add(channel.write(OutboundUlpdu.of(new byte[HEADER], payload.retain())));
        }
        assertThat(encoder.holdsHeadSlab()).isTrue();
        List<Boolean> heldAtClose = new ArrayList<>();
        channel.closeFuture().addListener(closed -> heldAtClose.add(encoder.holdsHeadSlab()));
        channel.close();
        // Let go within the close, before the pipeline's teardown (a later task) runs.
        assertThat(heldAtClose).containsExactly(false);
        assertThat(encoder.holdsHeadSlab()).isFalse();
        for (ChannelFuture f : futures) {
            assertThat(f.isDone()).isTrue();
            assertThat(f.isSuccess()).isFalse();
        }
        for (ByteBuf payload : payloads) {
            assertThat(payload.release()).as("the encoder and the transport let go of the payload").isTrue();
        }
        assertThat(alloc.direct).hasSize(1);
        assertThat(alloc.lastDirect().refCnt()).as("the slab after the close").isZero();
        assertThat(channel.finish()).isFalse();
    }

    /**
     * Writes one ULPDU (a random header and {@code length} random payload octets) to the encoder
     * under test with {@code promise}, and the same octets to the reference encoder.
     */
    private static void writeToBoth(EmbeddedChannel channel, EmbeddedChannel reference, Random random, int length,
                                    ChannelPromise promise) {
        byte[] header = new byte[HEADER];
        byte[] payload = new byte[length];
        random.nextBytes(header);
        random.nextBytes(payload);
        channel.write(OutboundUlpdu.of(header, Wire.buf(payload)), promise);
        reference.writeOutbound(Wire.buf(Wire.concat(header, payload)));
    }

    /** The entries at the indexes {@code copied} accepts are consecutive slices of {@code slab}, in order. */
    private static void assertConsecutiveSlices(ByteBuf slab, List<ByteBuf> entries, IntPredicate copied) {
        long next = entries.get(0).memoryAddress();
        for (int i = 0; i < entries.size(); i++) {
            if (copied.test(i)) {
                ByteBuf small = entries.get(i);
                assertThat(root(small)).as("entry %d", i).isSameAs(slab);
                assertThat(small.memoryAddress()).as("entry %d", i).isEqualTo(next);
                next += small.readableBytes();
            }
        }
    }

    /**
     * Drains what the flush wrote and hands it to {@code check}, which returns the slab the entries
     * were cut from; then {@link #assertFramedAsReferenceThenRelease}. The entries are released
     * whatever fails.
     */
    private static void drainAndCheck(EmbeddedChannel channel, EmbeddedChannel reference,
                                      Function<List<ByteBuf>, ByteBuf> check) {
        List<ByteBuf> entries = drain(channel);
        try {
            ByteBuf slab = check.apply(entries);
            assertFramedAsReferenceThenRelease(entries, reference, slab);
        } finally {
            entries.forEach(ByteBuf::release);
        }
    }

    /** Neither channel holds anything more. */
    private static void finishBoth(EmbeddedChannel channel, EmbeddedChannel reference) {
        assertThat(channel.finish()).isFalse();
        assertThat(reference.finish()).isFalse();
    }

    /** The entries carry the reference's FPDUs octet for octet; once they are released nothing holds the slab. */
    private static void assertFramedAsReferenceThenRelease(List<ByteBuf> entries, EmbeddedChannel reference,
                                                           ByteBuf slab) {
        assertThat(Wire.concat(entries.stream().map(ByteBufUtil::getBytes).toArray(byte[][]::new)))
                .isEqualTo(Wire.outbound(reference));
        entries.forEach(ByteBuf::release);
        entries.clear();
        assertThat(slab.refCnt()).as("the slab, once its slices are written").isZero();
    }

    private static EmbeddedChannel channel(RecordingAllocator alloc) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.pipeline().addLast(new MpaFrameEncoder(false, true, false));
        return channel;
    }

    /** The buffer a slice (and the leak detector's wrapper around it) is cut from. */
    private static ByteBuf root(ByteBuf buf) {
        while (buf.unwrap() != null) {
            buf = buf.unwrap();
        }
        return buf;
    }

    private static List<ByteBuf> drain(EmbeddedChannel channel) {
        List<ByteBuf> out = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            out.add((ByteBuf) o);
        }
        return out;
    }
}
