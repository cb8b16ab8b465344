package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** RFC 5041 §5.2 segmentation at the Data Source, and the MSN sequence of §4.3. */
class SegmentationTest {

    /** A segment as decoded back from the segmenter's ULPDU. */
    record Seg(DdpHeader header, byte[] payload, int ulpduLength) {
    }

    static List<Seg> segment(DdpSegmenter segmenter) throws DdpException {
        List<Seg> out = new ArrayList<>();
        while (segmenter.hasNext()) {
            DdpHeader peeked = segmenter.peekHeader();
            ByteBuf ulpdu = segmenter.next(ByteBufAllocator.DEFAULT);
            DdpSegment s = DdpSegment.decode(ulpdu);
            try {
                assertThat(s.header()).isEqualTo(peeked);
                out.add(new Seg(s.header(), Bufs.peek(s.payload()), s.segmentLength()));
            } finally {
                s.release();
                ulpdu.release();
            }
        }
        return out;
    }

    @Test
    void rfcUntaggedExample2048OctetsMulpdu1500() throws Exception {
        // DDP-R-029, §5.2: "one with MO = 0, containing 1482 octets ... a second with MO = 1482,
        // containing 566 octets"; 1482 = 1500 - 18. DDP-R-026: the first MO is 0.
        byte[] message = Bufs.pattern(2048, 7);
        ByteBuf payload = Bufs.buf(message);
        List<Seg> segs = segment(DdpSegmenter.untagged(0x43, 0, 0, 1, payload, 1500));
        payload.release();
        assertThat(segs).extracting(s -> ((UntaggedHeader) s.header()).mo()).containsExactly(0, 1482);
        assertThat(segs).extracting(s -> s.payload().length).containsExactly(1482, 566);
        assertThat(segs).extracting(Seg::ulpduLength).containsExactly(1500, 584);
        assertThat(Bufs.concat(segs.get(0).payload(), segs.get(1).payload())).isEqualTo(message);
    }

    @Test
    void rfcTaggedExample2048OctetsAtTo16384() throws Exception {
        // DDP-R-030, §5.2: "one with TO = 16384, containing the first 1486 octets ... a second with
        // TO = 17870, containing 562 octets"; 1486 = 1500 - 14.
        byte[] message = Bufs.pattern(2048, 3);
        ByteBuf payload = Bufs.buf(message);
        List<Seg> segs = segment(DdpSegmenter.tagged(0x40, 0x1234, 16384, payload, 1500));
        payload.release();
        assertThat(segs).extracting(s -> ((TaggedHeader) s.header()).to()).containsExactly(16384L, 17870L);
        assertThat(segs).extracting(s -> s.payload().length).containsExactly(1486, 562);
        assertThat(Bufs.concat(segs.get(0).payload(), segs.get(1).payload())).isEqualTo(message);
    }

    @Test
    void lastFlagOnlyOnTheLastOfThreeSegmentsWhichCarriesTheHighestMo() throws Exception {
        // DDP-R-013 (L pattern 0,0,1), DDP-R-014 (L segment posted last, highest MO), DDP-R-033 (increasing MO),
        // DDP-R-019/DDP-R-024/DDP-R-025: RsvdULP, QN and MSN identical in every segment.
        ByteBuf payload = Bufs.buf(Bufs.pattern(3000, 0));
        DdpSegmenter segmenter = DdpSegmenter.untagged(0x44, 0xCAFEBABE, 5, 77, payload, 1200);
        assertThat(segmenter.segmentCount()).isEqualTo(3);
        List<Seg> segs = segment(segmenter);
        payload.release();
        assertThat(segs).extracting(s -> s.header().last()).containsExactly(false, false, true);
        assertThat(segs).extracting(s -> ((UntaggedHeader) s.header()).mo()).containsExactly(0, 1182, 2364);
        assertThat(segs).extracting(Seg::header).containsExactly(
                new UntaggedHeader(false, 0x44, 0xCAFEBABE, 5, 77, 0),
                new UntaggedHeader(false, 0x44, 0xCAFEBABE, 5, 77, 1182),
                new UntaggedHeader(true, 0x44, 0xCAFEBABE, 5, 77, 2364));
        assertThat(segs).allSatisfy(s -> assertThat(s.ulpduLength()).isLessThanOrEqualTo(1200));
    }

    @Test
    void taggedSegmentsRepeatTheStagAndStartAnywhere() throws Exception {
        // DDP-R-021: same STag in every segment; DDP-R-022: a message may start at any TO (here base + 3).
        long base = 0x00007F0000001000L;
        ByteBuf payload = Bufs.buf(Bufs.pattern(500, 1));
        List<Seg> segs = segment(DdpSegmenter.tagged(0x40, 0x55667788, base + 3, payload, 128));
        payload.release();
        assertThat(segs).hasSize(5); // 114 octets per segment
        assertThat(segs).extracting(s -> ((TaggedHeader) s.header()).stag()).containsOnly(0x55667788);
        assertThat(segs).extracting(s -> ((TaggedHeader) s.header()).to())
                .containsExactly(base + 3, base + 117, base + 231, base + 345, base + 459);
        assertThat(segs).extracting(s -> s.header().last()).containsExactly(false, false, false, false, true);
    }

    @Test
    void aZeroLengthMessageIsExactlyOneSegment() throws Exception {
        // DDP-R-031: a zero-length message consumes exactly one segment, L = 1.
        ByteBuf empty = ByteBufAllocator.DEFAULT.buffer(0);
        for (DdpSegmenter s : new DdpSegmenter[] {
                DdpSegmenter.untagged(0x43, 0, 0, 9, empty, 128), DdpSegmenter.tagged(0x40, 0, 0, empty, 128)}) {
            assertThat(s.segmentCount()).isEqualTo(1);
            List<Seg> segs = segment(s);
            assertThat(segs).hasSize(1);
            assertThat(segs.get(0).header().last()).isTrue();
            assertThat(segs.get(0).payload()).isEmpty();
            assertThat(segs.get(0).ulpduLength()).isEqualTo(segs.get(0).header().length());
        }
        empty.release();
        assertThat(DdpSegmenter.segmentCount(true, 0, 1454)).isEqualTo(1);
    }

    @Test
    void oneMebibyteWithMulpdu1454() {
        // DDP-R-028: 1 MiB Send with MULPDU 1454 -> ceil(1048576 / 1436) segments; each at most MULPDU.
        assertThat(DdpSegmenter.segmentCount(false, 1 << 20, 1454)).isEqualTo((1048576 + 1435) / 1436).isEqualTo(731);
        assertThat(DdpSegmenter.segmentCount(true, 1 << 20, 1454)).isEqualTo((1048576 + 1439) / 1440);
        assertThat(DdpSegmenter.segmentCount(false, DdpConstants.MAX_MESSAGE_LENGTH, 1454)).isPositive();
        assertThatThrownBy(() -> DdpSegmenter.segmentCount(false, 1L << 32, 1454))
                .as("ULP message length < 2^32").isInstanceOf(IllegalArgumentException.class);

        ByteBuf payload = ByteBufAllocator.DEFAULT.buffer(1 << 20).writeZero(1 << 20);
        DdpSegmenter segmenter = DdpSegmenter.untagged(0x43, 0, 0, 1, payload, 1454);
        int n = 0;
        long total = 0;
        while (segmenter.hasNext()) {
            ByteBuf ulpdu = segmenter.next(ByteBufAllocator.DEFAULT);
            assertThat(ulpdu.readableBytes()).isLessThanOrEqualTo(1454);
            total += ulpdu.readableBytes() - 18;
            ulpdu.release();
            n++;
        }
        payload.release();
        assertThat(n).isEqualTo(731);
        assertThat(total).as("DDP-R-028: all the data is sent").isEqualTo(1 << 20);
    }

    @Test
    void segmentsShareThePayloadsMemory() throws Exception {
        // Architecture "Data path": the payload is sliced, never copied. Changing the payload after
        // segmentation changes what the segment carries; the caller's indexes are untouched.
        ByteBuf payload = Bufs.buf(Bufs.pattern(300, 0));
        payload.readerIndex(100); // the message is the last 200 octets
        DdpSegmenter segmenter = DdpSegmenter.tagged(0x40, 1, 0, payload, 128);
        payload.readerIndex(0);
        ByteBuf first = segmenter.next(ByteBufAllocator.DEFAULT);
        payload.setByte(100, 0x7E);
        ByteBuf second = segmenter.next(ByteBufAllocator.DEFAULT);
        assertThat(segmenter.hasNext()).isFalse();
        payload.release();
        assertThat(payload.refCnt()).as("the segments hold the memory").isPositive();
        byte[] a = Bufs.drain(first);
        byte[] b = Bufs.drain(second);
        assertThat(payload.refCnt()).isZero();
        assertThat(a[14]).isEqualTo((byte) 0x7E);
        assertThat(a).hasSize(128);
        assertThat(b).hasSize(14 + 200 - 114);
        assertThat(b[14]).isEqualTo((byte) ((100 + 114) % 251));
    }

    @Test
    void nextAfterTheLastSegmentFails() {
        ByteBuf payload = Bufs.buf(new byte[10]);
        DdpSegmenter segmenter = DdpSegmenter.untagged(0x43, 0, 0, 1, payload, 128);
        segmenter.next(ByteBufAllocator.DEFAULT).release();
        payload.release();
        assertThatThrownBy(() -> segmenter.next(ByteBufAllocator.DEFAULT)).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(segmenter::peekHeader).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void impossibleMessagesAreRefusedLocally() {
        ByteBuf payload = Bufs.buf(new byte[32]);
        try {
            assertThatThrownBy(() -> DdpSegmenter.tagged(0x40, 1, 0xFFFFFFFFFFFFFFF0L, payload, 128))
                    .as("TO wrap").isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> DdpSegmenter.untagged(0x43, 0, 0, 1, payload, 18))
                    .as("MULPDU without room for payload").isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> DdpSegmenter.tagged(0x40, 1, 0, payload, 14)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> DdpSegmenter.tagged(0x40, 1, 0xFFFFFFFFFFFFFFE0L, payload, 128))
                    .as("TO + length = 2^64 does not fit 64 bits").isInstanceOf(IllegalArgumentException.class);
            assertThat(DdpSegmenter.tagged(0x40, 1, 0xFFFFFFFFFFFFFFDFL, payload, 128).segmentCount())
                    .as("the last octet at 2^64 - 2 is fine").isEqualTo(1);
        } finally {
            payload.release();
        }
    }

    @Test
    void taggedModuloPassesOnAWrappingRangeAsGiven() throws Exception {
        // DdpSegmenter.taggedModulo: 32 octets from TO 2^64 - 16, MULPDU 30 (16 octets a segment):
        // TO 0xFFFFFFFFFFFFFFF0 with 16 octets, then TO 0 with 16 and L = 1, the octets in order.
        byte[] message = Bufs.pattern(32, 5);
        ByteBuf payload = Bufs.buf(message);
        List<Seg> segs = segment(DdpSegmenter.taggedModulo(0x42, 7, 0xFFFF_FFFF_FFFF_FFF0L, payload, 30));
        payload.release();
        assertThat(segs).extracting(s -> ((TaggedHeader) s.header()).to()).containsExactly(0xFFFF_FFFF_FFFF_FFF0L, 0L);
        assertThat(segs).extracting(s -> s.header().last()).containsExactly(false, true);
        assertThat(segs).extracting(s -> ((TaggedHeader) s.header()).stag()).containsOnly(7);
        assertThat(Bufs.concat(segs.get(0).payload(), segs.get(1).payload())).isEqualTo(message);
    }

    @Test
    void wrapsTaggedOffsetIsTheSumTheDataSinkChecks() {
        // RFC 5041 §7.1 check 5: TO + length must fit 64 bits; 2^64 itself does not; zero length never wraps.
        assertThat(DdpSegmenter.wrapsTaggedOffset(0xFFFF_FFFF_FFFF_FFE0L, 31)).isFalse();
        assertThat(DdpSegmenter.wrapsTaggedOffset(0xFFFF_FFFF_FFFF_FFE0L, 32)).isTrue();
        assertThat(DdpSegmenter.wrapsTaggedOffset(0xFFFF_FFFF_FFFF_FF00L, 0xFFFF_FFFFL)).isTrue();
        assertThat(DdpSegmenter.wrapsTaggedOffset(0xFFFF_FFFF_FFFF_FFFFL, 0)).isFalse();
        assertThat(DdpSegmenter.wrapsTaggedOffset(0, 0xFFFF_FFFFL)).isFalse();
    }

    @Test
    void msnStartsAtOneAndWrapsToZero() {
        // DDP-R-025: first MSN 1, +1 per message; 0xFFFFFFFE, 0xFFFFFFFF, 0x00000000 across the wrap.
        MsnSequence send = new MsnSequence();
        MsnSequence readRequests = new MsnSequence();
        assertThat(new int[] {send.next(), send.next(), readRequests.next()}).containsExactly(1, 2, 1);
        MsnSequence wrap = new MsnSequence(0xFFFFFFFE);
        assertThat(new int[] {wrap.next(), wrap.next(), wrap.next(), wrap.peek()})
                .containsExactly(0xFFFFFFFE, 0xFFFFFFFF, 0x00000000, 1);
    }

    @Test
    void messagesGoOutInSubmissionOrder() throws Exception {
        // DDP-R-033: A then B submitted -> MSN order A < B on the wire, segments of A before B's.
        MsnSequence msns = new MsnSequence();
        List<Seg> wire = new ArrayList<>();
        for (String text : new String[] {"A".repeat(200), "B".repeat(50)}) {
            ByteBuf payload = Bufs.buf(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            wire.addAll(segment(DdpSegmenter.untagged(0x43, 0, 0, msns.next(), payload, 128)));
            payload.release();
        }
        assertThat(wire).extracting(s -> ((UntaggedHeader) s.header()).msn()).containsExactly(1, 1, 2);
        assertThat(wire).extracting(s -> (char) s.payload()[0]).containsExactly('A', 'A', 'B');
    }

    @Test
    void nextUlpduGivesTheSameOctetsAsNextWithThePayloadNotCopied() throws Exception {
        // What RDMAP writes (header octets and a slice of the message, apart) is the ULPDU that
        // next() builds: header per DDP-R-013, DDP-R-019, DDP-R-026, DDP-R-030, payload slices in order (DDP-R-033).
        byte[] message = Bufs.pattern(5000, 9);
        ByteBuf payload = Bufs.buf(message);
        try {
            for (boolean tagged : new boolean[] {true, false}) {
                DdpSegmenter parts = tagged ? DdpSegmenter.tagged(0x40, 0x77, 1 << 20, payload, 2000)
                        : DdpSegmenter.untagged(0x43, 0xABCD, 0, 9, payload, 2000);
                DdpSegmenter whole = tagged ? DdpSegmenter.tagged(0x40, 0x77, 1 << 20, payload, 2000)
                        : DdpSegmenter.untagged(0x43, 0xABCD, 0, 9, payload, 2000);
                int segments = 0;
                while (whole.hasNext()) {
                    assertThat(parts.hasNext()).isTrue();
                    org.iwarp4j.mpa.OutboundUlpdu ulpdu = parts.nextUlpdu();
                    try {
                        assertThat(ulpdu.header()).hasSize(tagged ? 14 : 18);
                        assertThat(Bufs.drain(ulpdu.toByteBuf(ByteBufAllocator.DEFAULT)))
                                .isEqualTo(Bufs.drain(whole.next(ByteBufAllocator.DEFAULT)));
                        // A view of the message, not a copy: a change to the message shows through.
                        int at = segments * (2000 - ulpdu.header().length);
                        payload.setByte(at, ~payload.getByte(at));
                        ByteBuf view = ulpdu.payload();
                        assertThat(view.getByte(view.readerIndex())).isEqualTo(payload.getByte(at));
                    } finally {
                        ulpdu.release();
                    }
                    segments++;
                }
                assertThat(parts.hasNext()).isFalse();
                assertThat(segments).isEqualTo(3);
            }
        } finally {
            payload.release();
        }
        assertThat(payload.refCnt()).isZero();
    }

    @Property(tries = 300)
    void nextUlpduHeadersAreThePeekedHeadersEncoded(@ForAll boolean tagged, @ForAll @IntRange(max = 5000) int length,
            @ForAll @IntRange(min = 19, max = 3000) int mulpdu, @ForAll @LongRange(max = Long.MAX_VALUE) long to,
            @ForAll int stagOrInvalidate, @ForAll int msn, @ForAll @IntRange(max = 255) int rsvdUlp) {
        // The header octets nextUlpdu() patches from the first segment's are, segment by segment,
        // what the segment's DdpHeader encodes to: L on the last only (DDP-R-013), TO / MO
        // advancing by the payload taken (DDP-R-026, DDP-R-030), the rest repeated (DDP-R-019, DDP-R-021, DDP-R-024).
        ByteBuf payload = ByteBufAllocator.DEFAULT.buffer(length).writeZero(length);
        try {
            DdpSegmenter segmenter = tagged ? DdpSegmenter.tagged(rsvdUlp, stagOrInvalidate, to, payload, mulpdu)
                    : DdpSegmenter.untagged(rsvdUlp, stagOrInvalidate, 0, msn, payload, mulpdu);
            int taken = 0;
            int segments = 0;
            while (segmenter.hasNext()) {
                DdpHeader expected = segmenter.peekHeader();
                ByteBuf encoded = ByteBufAllocator.DEFAULT.buffer();
                expected.encode(encoded);
                org.iwarp4j.mpa.OutboundUlpdu ulpdu = segmenter.nextUlpdu();
                try {
                    assertThat(ulpdu.header()).isEqualTo(Bufs.drain(encoded));
                    assertThat(ulpdu.payload().readableBytes()).isEqualTo(Math.min(mulpdu - expected.length(),
                            length - taken));
                    taken += ulpdu.payload().readableBytes();
                } finally {
                    ulpdu.release();
                }
                segments++;
            }
            assertThat(taken).isEqualTo(length);
            assertThat(segments).isEqualTo(segmenter.segmentCount());
        } finally {
            payload.release();
        }
    }
}
