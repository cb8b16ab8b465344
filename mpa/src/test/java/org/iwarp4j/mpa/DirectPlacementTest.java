package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Direct placement in {@link MpaFrameDecoder} with {@link PlacementRecvByteBufAllocator}: once an
 * FPDU's header is in, the rest of its payload is read by the "socket" straight into the memory
 * the advisor named (the buffer each read gets is a slice of that memory, and nothing else is
 * allocated meanwhile), the CRC is checked over the placed octets and the pad (MPA-R-030), the
 * ULPDU is delivered only after that check (MPA-R-039, MPA-R-040), whatever the cuts between reads
 * (MPA-R-037). A CRC error after placement delivers nothing, now or later (MPA-R-074), and no octet
 * outside the named memory is ever written.
 *
 * <p>The test ULP's ULPDU is a 14-octet header, whose first four octets say where in the region
 * the payload goes, then the payload. Reads are simulated as Netty's read loop does them: each
 * read takes the buffer the channel's allocator hands out and gets at most what the current TCP
 * segment still holds.
 */
class DirectPlacementTest {

    private static final int HEADER = 14;
    private static final int GUARD = 64;
    private static final byte UNTOUCHED = (byte) 0xEE;

    /** One connection's decoder with a region for the payloads and a test advisor. */
    private static final class Harness implements AutoCloseable {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final PlacementRecvByteBufAllocator reads =
                new PlacementRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(64, 1024, 65536));
        final ByteBuf region;
        final List<Throwable> errors = new ArrayList<>();
        final CountingAllocator readBuffers = new CountingAllocator();
        /** Per read: octets read, and whether its buffer was region memory. */
        final List<int[]> log = new ArrayList<>();
        int advised;
        boolean accept = true;
        boolean heapTarget;
        /** What the placement's validity check answers (an STag invalidated meanwhile: false). */
        boolean valid = true;

        Harness(int regionLength, boolean markers, boolean crc, int threshold) {
            region = ByteBufAllocator.DEFAULT.directBuffer(regionLength + 2 * GUARD);
            region.writerIndex(region.capacity());
            for (int i = 0; i < region.capacity(); i++) {
                region.setByte(i, UNTOUCHED);
            }
            channel.config().setRecvByteBufAllocator(reads);
            MpaFrameDecoder decoder = new MpaFrameDecoder(markers, crc, 0xFFFF);
            decoder.placementAdvisor(this::advise, threshold);
            channel.pipeline().addLast(decoder, new ChannelInboundHandlerAdapter() {
                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    errors.add(cause);
                }
            });
        }

        private DirectPlacement advise(ByteBuf head, int ulpduLength) {
            advised++;
            if (!accept || head.readableBytes() < HEADER) {
                return null;
            }
            int at = head.getInt(head.readerIndex());
            int length = ulpduLength - HEADER;
            ByteBuf target = heapTarget ? Unpooled.buffer(length) : region.retainedSlice(GUARD + at, length);
            return DirectPlacement.of(HEADER, target, () -> valid);
        }

        /**
         * The stream arrives in TCP segments of {@code segments} octets (cyclically); each read takes
         * the allocator's buffer and fills it with at most what the current segment still has.
         */
        void receive(byte[] stream, List<Integer> segments) {
            RecvByteBufAllocator.Handle handle = channel.unsafe().recvBufAllocHandle();
            int offset = 0;
            int segment = 0;
            int left = Math.min(segments.get(0), stream.length);
            while (offset < stream.length) {
                if (left == 0) {
                    segment++;
                    left = Math.min(segments.get(segment % segments.size()), stream.length - offset);
                    continue;
                }
                ByteBuf buf = handle.allocate(readBuffers);
                int n = Math.min(buf.writableBytes(), left);
                boolean inRegion = isRegionMemory(buf);
                buf.writeBytes(stream, offset, n);
                log.add(new int[] {n, inRegion ? 1 : 0, readBuffers.allocated});
                offset += n;
                left -= n;
                channel.writeInbound(buf);
            }
        }

        boolean isRegionMemory(ByteBuf buf) {
            long start = region.memoryAddress();
            return buf.hasMemoryAddress() && buf.memoryAddress() >= start
                    && buf.memoryAddress() < start + region.capacity();
        }

        List<byte[]> delivered() {
            return Wire.inbound(channel);
        }

        byte[] regionBytes(int from, int length) {
            return ByteBufUtil.getBytes(region, GUARD + from, length);
        }

        void assertGuardsUntouched(int placedEnd) {
            for (int i = 0; i < GUARD; i++) {
                assertThat(region.getByte(i)).as("guard octet %d before the region", i).isEqualTo(UNTOUCHED);
            }
            for (int i = GUARD + placedEnd; i < region.capacity(); i++) {
                assertThat(region.getByte(i)).as("octet %d after the payloads", i).isEqualTo(UNTOUCHED);
            }
        }

        @Override
        public void close() {
            channel.finishAndReleaseAll();
            region.release();
        }
    }

    /** Counts what the reads' buffers cost: octets asked of the allocator. */
    private static final class CountingAllocator extends io.netty.buffer.AbstractByteBufAllocator {
        int allocated;

        CountingAllocator() {
            super(true);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            allocated += initialCapacity;
            return ByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            allocated += initialCapacity;
            return ByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return true;
        }
    }

    private static byte[] ulpdu(int regionOffset, byte[] payload) {
        byte[] u = new byte[HEADER + payload.length];
        u[0] = (byte) (regionOffset >>> 24);
        u[1] = (byte) (regionOffset >>> 16);
        u[2] = (byte) (regionOffset >>> 8);
        u[3] = (byte) regionOffset;
        Arrays.fill(u, 4, HEADER, (byte) 0x5A);
        System.arraycopy(payload, 0, u, HEADER, payload.length);
        return u;
    }

    private static byte[] encode(boolean markers, boolean crc, List<byte[]> ulpdus) {
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        for (byte[] u : ulpdus) {
            encoder.writeOutbound(Wire.buf(u));
        }
        byte[] stream = Wire.outbound(encoder);
        encoder.finishAndReleaseAll();
        return stream;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void theRestOfThePayloadIsReadStraightIntoTheRegion() {
        byte[] payload = random(60000, 1);
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(false, true, List.of(u));
        try (Harness h = new Harness(payload.length, false, true, 1024)) {
            h.receive(stream, List.of(4096));
            assertThat(h.errors).isEmpty();
            List<byte[]> delivered = h.delivered();
            assertThat(delivered).hasSize(1);
            assertThat(delivered.get(0)).isEqualTo(u);
            assertThat(h.regionBytes(0, payload.length)).isEqualTo(payload);
            h.assertGuardsUntouched(payload.length);
            assertThat(h.advised).isEqualTo(1);

            // Reads: ordinary ones until the header was in, then only region memory up to the
            // payload's end, then the trailer in an ordinary read. No buffer was allocated for a read
            // between the first and the last read into the region.
            int first = -1;
            int last = -1;
            for (int i = 0; i < h.log.size(); i++) {
                if (h.log.get(i)[1] == 1) {
                    first = first < 0 ? i : first;
                    last = i;
                }
            }
            assertThat(first).as("a read went into the region").isPositive();
            int ordinaryBefore = 0;
            for (int i = 0; i < first; i++) {
                ordinaryBefore += h.log.get(i)[0];
            }
            int inPlace = 0;
            for (int i = first; i <= last; i++) {
                assertThat(h.log.get(i)[1]).as("read %d", i).isEqualTo(1);
                inPlace += h.log.get(i)[0];
            }
            assertThat(h.log.get(last)[2]).as("octets allocated for reads while placing")
                    .isEqualTo(h.log.get(first - 1)[2]);
            assertThat(inPlace).isEqualTo(payload.length - (ordinaryBefore - 2 - HEADER));
            assertThat(inPlace).isGreaterThan(payload.length - 4096);
            assertThat(h.reads.readsInPlace()).isEqualTo(last - first + 1);
        }
    }

    @Property(tries = 80)
    void anyCutPlacesTheSameOctetsAndDeliversTheSameUlpdus(
            @ForAll @IntRange(min = 1, max = MpaConstants.MAX_ULPDU - HEADER) int first,
            @ForAll @IntRange(min = 0, max = 300) int small,
            @ForAll @IntRange(min = 1, max = 20000) int third,
            @ForAll boolean crc, @ForAll("segments") List<Integer> segments, @ForAll long seed) {
        byte[] a = random(first, seed);
        byte[] b = random(small, seed + 1);
        byte[] c = random(third, seed + 2);
        List<byte[]> ulpdus = List.of(ulpdu(0, a), ulpdu(first, b), ulpdu(first + small, c));
        byte[] stream = encode(false, crc, ulpdus);
        // Under PARANOID leak tracking every read costs a stack trace: at most ~1500 reads.
        int floor = (stream.length + 1499) / 1500;
        List<Integer> cuts = new ArrayList<>();
        for (int s : segments) {
            cuts.add(Math.max(floor, s));
        }
        try (Harness h = new Harness(first + small + third, false, crc, 512)) {
            h.receive(stream, cuts);
            assertThat(h.errors).isEmpty();
            List<byte[]> delivered = h.delivered();
            assertThat(delivered).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(delivered.get(i)).as("ULPDU %d", i).isEqualTo(ulpdus.get(i));
            }
            // Each payload is either all in its place (placed directly) or not there at all; the
            // small one in between was below the threshold; nothing else was written.
            assertPlacedOrUntouched(h, 0, a);
            if (small > 0) {
                assertThat(h.regionBytes(first, small)).as("the small payload's octets").containsOnly(UNTOUCHED);
            }
            assertPlacedOrUntouched(h, first + small, c);
            h.assertGuardsUntouched(first + small + third);
        }
    }

    private static void assertPlacedOrUntouched(Harness h, int at, byte[] payload) {
        byte[] there = h.regionBytes(at, payload.length);
        if (!Arrays.equals(there, payload)) {
            assertThat(there).as("payload at %d: neither placed nor untouched", at).containsOnly(UNTOUCHED);
        }
    }

    @Provide
    Arbitrary<List<Integer>> segments() {
        Arbitrary<Integer> boundaryHeavy = Arbitraries.oneOf(Arbitraries.integers().between(1, 24),
                Arbitraries.integers().between(1, 70000), Arbitraries.integers().between(1460, 1460),
                Arbitraries.integers().between(65483, 65535));
        return boundaryHeavy.list().ofMinSize(1).ofMaxSize(12);
    }

    /**
     * A cut at every octet of the FPDU's head and of its end (length field, header, first payload
     * octets, last payload octets, pad, CRC): two TCP segments, each read in as many reads as the
     * allocator's buffers take.
     */
    /** Octets the allocator was asked for by read {@code i} of the harness's log. */
    private static int asked(Harness h, int i) {
        return h.log.get(i)[2] - (i == 0 ? 0 : h.log.get(i - 1)[2]);
    }

    /** Index of the first read after the in-place reads of the first placed FPDU. */
    private static int firstReadAfterPlacing(Harness h) {
        int i = 0;
        while (h.log.get(i)[1] == 0) {
            i++;
        }
        while (h.log.get(i)[1] == 1) {
            i++;
        }
        return i;
    }

    @Test
    void aReceiverAheadOfTheSenderReadsOnlyTheTrailerAndNextHeadAfterAPlacedPayload() {
        byte[] first = random(60000, 11);
        byte[] second = random(60000, 12);
        byte[] u1 = ulpdu(0, first);
        byte[] u2 = ulpdu(first.length, second);
        byte[] stream = encode(false, true, List.of(u1, u2));
        try (Harness h = new Harness(first.length + second.length, false, true, 1024)) {
            // 4 KiB TCP segments: every read into the region finds the socket drained after one.
            h.receive(stream, List.of(4096));
            assertThat(h.errors).isEmpty();
            assertThat(h.delivered()).containsExactly(u1, u2);
            assertThat(h.regionBytes(0, first.length)).isEqualTo(first);
            assertThat(h.regionBytes(first.length, second.length)).isEqualTo(second);
            int next = firstReadAfterPlacing(h);
            // no pad (2 + 60014 octets fill whole words), CRC 4, ULPDU_Length 2, the advisor's head 18
            assertThat(asked(h, next)).as("octets asked by the read after the payload").isEqualTo(4 + 2 + 18);
            assertThat(h.log.get(next + 1)[1]).as("the second payload is read in place right away").isEqualTo(1);
        }
    }

    @Test
    void aBackloggedSocketGetsAnOrdinaryReadAfterAPlacedPayload() {
        byte[] first = random(60000, 13);
        byte[] second = random(60000, 14);
        byte[] u1 = ulpdu(0, first);
        byte[] u2 = ulpdu(first.length, second);
        byte[] stream = encode(false, true, List.of(u1, u2));
        try (Harness h = new Harness(first.length + second.length, false, true, 1024)) {
            // The first read takes 1 KiB; after it, the whole rest is waiting in the socket, so the
            // read into the region is filled completely.
            h.receive(stream, List.of(1024, stream.length));
            assertThat(h.errors).isEmpty();
            assertThat(h.delivered()).containsExactly(u1, u2);
            assertThat(h.regionBytes(0, first.length)).isEqualTo(first);
            assertThat(h.regionBytes(first.length, second.length)).isEqualTo(second);
            int next = firstReadAfterPlacing(h);
            assertThat(asked(h, next)).as("octets asked by the read after the payload")
                    .isGreaterThan(4 + 2 + 18);
            assertThat(h.log.get(next)[0]).as("that read takes the trailer and beyond").isGreaterThan(4 + 2 + 18);
        }
    }

    @Test
    void aCutAtEveryBoundaryPlacesAndDeliversTheUlpdu() {
        byte[] payload = random(3001, 7); // 3015-octet ULPDU: pad 3
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(false, true, List.of(u, ulpdu(0, new byte[0])));
        int fpdu = 2 + u.length + 3 + 4;
        List<Integer> cuts = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            cuts.add(i);
        }
        for (int i = fpdu - 16; i < fpdu + 8; i++) {
            cuts.add(i);
        }
        for (int cut : cuts) {
            try (Harness h = new Harness(payload.length, false, true, 16)) {
                h.receive(stream, List.of(cut, stream.length));
                assertThat(h.errors).as("cut at %d", cut).isEmpty();
                List<byte[]> delivered = h.delivered();
                assertThat(delivered).as("cut at %d", cut).hasSize(2);
                assertThat(delivered.get(0)).as("cut at %d", cut).isEqualTo(u);
                assertThat(h.regionBytes(0, payload.length)).as("cut at %d", cut).isEqualTo(payload);
                h.assertGuardsUntouched(payload.length);
                assertThat(h.reads.readsInPlace()).as("cut at %d: reads in place", cut).isPositive();
            }
        }
    }

    @Test
    void aBadCrcFoundAfterPlacementDeliversNothing() {
        byte[] payload = random(40000, 3);
        byte[] u = ulpdu(0, payload);
        byte[] next = ulpdu(0, random(100, 4));
        byte[] stream = encode(false, true, List.of(u, next));
        int crcAt = 2 + u.length + MpaFrameEncoder.padLength(u.length);
        stream[crcAt + 1] ^= 0x40;
        try (Harness h = new Harness(payload.length, false, true, 1024)) {
            h.receive(stream, List.of(1460));
            assertThat(h.reads.readsInPlace()).isPositive();
            assertThat(h.errors).hasSize(1);
            assertThat(h.errors.get(0)).isInstanceOf(MpaException.class);
            assertThat(((MpaException) h.errors.get(0)).error()).isEqualTo(MpaError.CRC_ERROR);
            assertThat(h.delivered()).as("neither the bad FPDU nor the good one after it (MPA-R-074)").isEmpty();
            // Placed but not delivered: allowed; nothing outside the named octets was written.
            assertThat(h.regionBytes(0, payload.length)).isEqualTo(payload);
            h.assertGuardsUntouched(payload.length);
        }
    }

    /**
     * The target stops being valid halfway (the ULP's STag was invalidated): no read goes into the
     * memory any more and nothing more is copied there, the rest is read, CRC-checked and dropped,
     * and the ULPDU is still delivered, for the ULP's own check at delivery to refuse.
     */
    @Test
    void aTargetThatStopsBeingValidGetsNoMoreOctets() {
        byte[] payload = random(40000, 10);
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(false, true, List.of(u));
        int half = 20000;
        try (Harness h = new Harness(payload.length, false, true, 1024)) {
            h.receive(Arrays.copyOf(stream, 2 + HEADER + half), List.of(4096));
            long inPlace = h.reads.readsInPlace();
            assertThat(inPlace).isPositive();
            assertThat(h.regionBytes(0, half)).isEqualTo(Arrays.copyOf(payload, half));
            h.valid = false;
            h.receive(Arrays.copyOfRange(stream, 2 + HEADER + half, stream.length), List.of(4096));
            assertThat(h.reads.readsInPlace()).as("no read into the memory once invalid").isEqualTo(inPlace);
            assertThat(h.errors).as("the CRC over all octets, placed or dropped, is right").isEmpty();
            assertThat(h.delivered()).hasSize(1);
            assertThat(h.regionBytes(half, payload.length - half)).containsOnly(UNTOUCHED);
            h.assertGuardsUntouched(payload.length);
        }
    }

    @Test
    void theConnectionEndingWhilePlacingIsConnectionLost() {
        byte[] payload = random(20000, 5);
        byte[] stream = encode(false, true, List.of(ulpdu(0, payload)));
        try (Harness h = new Harness(payload.length, false, true, 1024)) {
            h.receive(Arrays.copyOf(stream, 9000), List.of(3000));
            assertThat(h.reads.readsInPlace()).isPositive();
            h.channel.close();
            assertThat(h.errors).hasSize(1);
            assertThat(((MpaException) h.errors.get(0)).error()).isEqualTo(MpaError.CONNECTION_LOST);
            assertThat(h.delivered()).isEmpty();
            h.assertGuardsUntouched(payload.length);
        }
    }

    @Test
    void aDeclinedFpduTakesTheOrdinaryPathAndIsAskedAboutOnce() {
        byte[] payload = random(30000, 6);
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(false, true, List.of(u));
        try (Harness h = new Harness(payload.length, false, true, 1024)) {
            h.accept = false;
            h.receive(stream, List.of(700));
            assertThat(h.advised).isEqualTo(1);
            assertThat(h.reads.readsInPlace()).isZero();
            assertThat(h.delivered()).containsExactly(u);
            h.assertGuardsUntouched(0);
        }
    }

    @Test
    void smallFpdusAndHeapTargetsTakeTheOrdinaryPath() {
        byte[] payload = random(5000, 8);
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(false, true, List.of(u));
        try (Harness h = new Harness(payload.length, false, true, 6000)) {
            h.receive(stream, List.of(100));
            assertThat(h.advised).as("below the threshold").isZero();
            assertThat(h.delivered()).containsExactly(u);
            h.assertGuardsUntouched(0);
        }
        try (Harness h = new Harness(payload.length, false, true, 100)) {
            h.heapTarget = true;
            h.receive(stream, List.of(100));
            assertThat(h.advised).isEqualTo(1);
            assertThat(h.reads.readsInPlace()).as("a heap target is given back").isZero();
            assertThat(h.delivered()).containsExactly(u);
            h.assertGuardsUntouched(0);
        }
    }

    @Test
    void markersTurnDirectPlacementOff() {
        byte[] payload = random(30000, 9);
        byte[] u = ulpdu(0, payload);
        byte[] stream = encode(true, true, List.of(u));
        try (Harness h = new Harness(payload.length, true, true, 16)) {
            h.receive(stream, List.of(1000));
            assertThat(h.advised).isZero();
            assertThat(h.delivered()).containsExactly(u);
            h.assertGuardsUntouched(0);
        }
    }
}
