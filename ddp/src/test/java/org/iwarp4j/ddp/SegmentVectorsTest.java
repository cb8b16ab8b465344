package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.stream.Stream;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * testdata/vectors/fpdus.txt: the DDP segment inside every complete FPDU (ulpdu = fpdu[2 .. 2 +
 * ULPDU_Length)). Each is decoded to the fields its "Meaning" column states, re-encoded octet for
 * octet, and rebuilt from those fields by the {@link DdpSegmenter} and framed by MPA into the very
 * FPDU of the document (DDP-R-018, DDP-R-023, DDP-R-027, DDP-R-007).
 */
class SegmentVectorsTest {

    private static final int MULPDU = 1454;

    /** The header each vector's meaning column describes, and its payload length. */
    static Stream<Arguments> vectors() {
        return Stream.of(
                Arguments.of("V-FPDU-1", new UntaggedHeader(true, 0x43, 0, 0, 1, 0), 68),
                Arguments.of("V-FPDU-2", new UntaggedHeader(true, 0x44, 0x55667788, 0, 2, 0), 20),
                Arguments.of("V-FPDU-3", new UntaggedHeader(true, 0x41, 0, 1, 1, 0), 28),
                Arguments.of("V-FPDU-4", new TaggedHeader(true, 0x42, 0x01020304, 0x10000L), 8),
                Arguments.of("V-FPDU-5", new TaggedHeader(true, 0x40, 0xAABBCCDD, 0x1000L), 3),
                Arguments.of("V-FPDU-6", new UntaggedHeader(true, 0x47, 0, 2, 1, 0), 20),
                Arguments.of("V-FPDU-7", new UntaggedHeader(true, 0x47, 0, 2, 1, 0), 4),
                Arguments.of("V-FPDU-8", new UntaggedHeader(true, 0x47, 0, 2, 1, 0), 4),
                Arguments.of("V-RTR-1", new TaggedHeader(true, 0x40, 0, 0L), 0),
                Arguments.of("V-RTR-2", new UntaggedHeader(true, 0x41, 0, 1, 1, 0), 28),
                Arguments.of("V-RTR-3", new TaggedHeader(true, 0x42, 0, 0L), 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void decodesToTheDocumentedFields(String id, DdpHeader expected, int payloadLength) throws Exception {
        byte[] ulpdu = Bufs.ulpduOf(TestVectors.bytes(id));
        ByteBuf in = Bufs.buf(ulpdu);
        DdpSegment segment = DdpSegment.decode(in);
        try {
            assertThat(segment.header()).isEqualTo(expected);
            assertThat(segment.payloadLength()).isEqualTo(payloadLength);
            assertThat(segment.segmentLength()).as("DDP-R-007: length from the LLP").isEqualTo(ulpdu.length);
            assertThat(Bufs.peek(segment.payload()))
                    .isEqualTo(Arrays.copyOfRange(ulpdu, expected.length(), ulpdu.length));
            assertThat(segment.headerOctets()).isEqualTo(Arrays.copyOf(ulpdu, expected.length()));
            assertThat(in.readerIndex()).as("decode moves no index").isZero();
        } finally {
            segment.release();
            assertThat(in.refCnt()).as("the segment held its own reference").isEqualTo(1);
            in.release();
        }
    }

    /**
     * The segment holds the ULPDU itself (retained once), not a slice of it: it is still the octets
     * that were readable at decoding after the caller moves the ULPDU's indexes (as MPA's
     * cumulation or a ULP may), and its reference is the ULPDU's own, given back by its release.
     */
    @Test
    void segmentKeepsItsOctetsWhenTheUlpduIndexesMove() throws Exception {
        byte[] ulpdu = Bufs.ulpduOf(TestVectors.bytes("V-FPDU-4"));
        ByteBuf in = Bufs.buf(Bufs.concat(new byte[5], ulpdu)).readerIndex(5);
        DdpSegment segment = DdpSegment.decode(in);
        try {
            assertThat(in.refCnt()).as("decode retains the ULPDU once").isEqualTo(2);
            in.skipBytes(7).writerIndex(in.writerIndex() - 2);
            assertThat(segment.segmentLength()).isEqualTo(ulpdu.length);
            assertThat(segment.headerOctets()).isEqualTo(Arrays.copyOf(ulpdu, DdpConstants.TAGGED_HEADER_LENGTH));
            assertThat(Bufs.peek(segment.payload())).isEqualTo(Arrays.copyOfRange(ulpdu, DdpConstants.TAGGED_HEADER_LENGTH, ulpdu.length));
            assertThat(segment.taggedHeader().stag()).isEqualTo(0x01020304);
            assertThat(segment.refCnt()).isEqualTo(in.refCnt());
        } finally {
            assertThat(segment.release()).isFalse();
            assertThat(in.refCnt()).as("the segment's release gives its reference back").isEqualTo(1);
            in.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void encodesToTheVectorsOctets(String id, DdpHeader header, int payloadLength) {
        byte[] ulpdu = Bufs.ulpduOf(TestVectors.bytes(id));
        ByteBuf payload = Bufs.buf(Arrays.copyOfRange(ulpdu, header.length(), ulpdu.length));
        assertThat(Bufs.drain(DdpSegment.encode(ByteBufAllocator.DEFAULT, header, payload))).isEqualTo(ulpdu);
        assertThat(payload.refCnt()).as("encode took ownership of the payload").isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void segmenterAndMpaFramingReproduceTheFpdu(String id, DdpHeader header, int payloadLength) {
        byte[] fpdu = TestVectors.bytes(id);
        byte[] ulpdu = Bufs.ulpduOf(fpdu);
        ByteBuf payload = Bufs.buf(Arrays.copyOfRange(ulpdu, header.length(), ulpdu.length));
        DdpSegmenter segmenter = header instanceof TaggedHeader t
                ? DdpSegmenter.tagged(t.rsvdUlp(), t.stag(), t.to(), payload, MULPDU)
                : untagged((UntaggedHeader) header, payload);
        EmbeddedChannel mpa = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        assertThat(segmenter.segmentCount()).isEqualTo(1);
        while (segmenter.hasNext()) {
            mpa.writeOutbound(segmenter.next(ByteBufAllocator.DEFAULT));
        }
        payload.release(); // the segmenter does not own it
        assertThat(Bufs.outbound(mpa)).isEqualTo(fpdu);
        assertThat(mpa.finish()).isFalse();
    }

    private static DdpSegmenter untagged(UntaggedHeader h, ByteBuf payload) {
        return DdpSegmenter.untagged(h.rsvdUlp(), h.rsvdUlpWord(), h.qn(), h.msn(), payload, MULPDU);
    }

    @Test
    void publishedRfc5044FramesCarryUntaggedSendsWithMsn1And2() throws Exception {
        // V-MPA-F5/F6 (RFC 5044 Figures 5, 6, markers on): the DDP headers the RFC authors wrote are
        // untagged Sends, L=1, QN 0, MO 0, MSN 1 then 2 (DDP-R-025: first MSN 1, +1 per message).
        EmbeddedChannel mpa = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        mpa.writeInbound(Bufs.buf(TestVectors.bytes("V-MPA-F5")));
        ByteBuf first = mpa.readInbound();
        byte[] f6 = TestVectors.bytes("V-MPA-F6");
        // F6 starts at stream offset 0x1EC; its marker is at 0x200, i.e. octets 20..23 of the vector.
        byte[] f6Ulpdu = Arrays.copyOfRange(Bufs.concat(Arrays.copyOfRange(f6, 0, 20),
                Arrays.copyOfRange(f6, 24, f6.length)), 2, 2 + 42);
        ByteBuf second = Bufs.buf(f6Ulpdu);
        try {
            for (Object[] expect : new Object[][] {{first, 1}, {second, 2}}) {
                DdpSegment s = DdpSegment.decode((ByteBuf) expect[0]);
                try {
                    assertThat(s.header()).isEqualTo(new UntaggedHeader(true, 0x43, 0, 0, (Integer) expect[1], 0));
                    assertThat(Bufs.peek(s.payload())).isEqualTo(new byte[24]);
                } finally {
                    s.release();
                }
            }
        } finally {
            first.release();
            second.release();
        }
        assertThat(mpa.finish()).isFalse();
    }

    @Test
    void invalidStagReportCarriesWhatVFpdu6Echoes() throws Exception {
        // DDP-R-049 / RFC 5040 §4.8: V-FPDU-6 is the Terminate for V-FPDU-5 sent to an unknown STag:
        // control 11 00 c0 00 (Layer 1, EType 1, Code 0, M, D), DDP Segment Length 17, then the first
        // 14 octets of V-FPDU-5's DDP segment. Our report must hold exactly those values.
        byte[] terminate = Bufs.ulpduOf(TestVectors.bytes("V-FPDU-6"));
        ByteBuf in = Bufs.buf(Bufs.ulpduOf(TestVectors.bytes("V-FPDU-5")));
        DdpSegment write = DdpSegment.decode(in);
        in.release();
        DdpReceiver receiver = new DdpReceiver(new StagTable(), 1, 1, java.util.List.of());
        DdpException e;
        try {
            e = catchThrowableOfType(DdpException.class, () -> receiver.placeTagged(write, Access.REMOTE_WRITE));
        } finally {
            write.release();
        }
        int control = (terminate[18] & 0xFF) << 24 | (terminate[19] & 0xFF) << 16 | (terminate[20] & 0xFF) << 8
                | terminate[21] & 0xFF;
        assertThat(e.error()).isEqualTo(DdpError.INVALID_STAG);
        assertThat(e.error().terminateBits() | 0xC000).isEqualTo(control);
        assertThat(e.segmentLength()).isEqualTo((terminate[22] & 0xFF) << 8 | terminate[23] & 0xFF);
        assertThat(e.segmentHeader()).isEqualTo(Arrays.copyOfRange(terminate, 24, 38));
    }

    @Test
    void afterTheErrorTheOutboundHalfSendsExactlyVFpdu6() throws Exception {
        // DDP-R-044 / DDP-R-049: after a placement error the inbound half drops everything, but the ULP can
        // still send one message, the Terminate. Built the way RDMAP will (control word with M and D, the
        // 2-octet segment length, the echoed header; QN 2, MSN 1, RsvdULP 0x47) from DDP's report, it is
        // V-FPDU-6 octet for octet.
        DdpReceiver receiver = new DdpReceiver(new StagTable(), 1, 1, java.util.List.of());
        ByteBuf in = Bufs.buf(Bufs.ulpduOf(TestVectors.bytes("V-FPDU-5")));
        DdpException e;
        try {
            e = catchThrowableOfType(DdpException.class, () -> {
                DdpSegment s = receiver.decode(in);
                try {
                    receiver.placeTagged(s, Access.REMOTE_WRITE);
                } finally {
                    s.release();
                }
            });
            assertThat(receiver.decode(in)).as("inbound half stopped").isNull();
        } finally {
            in.release();
        }
        ByteBuf terminate = ByteBufAllocator.DEFAULT.buffer()
                .writeInt(e.error().terminateBits() | 0x8000 | 0x4000)
                .writeShort(e.segmentLength())
                .writeBytes(e.segmentHeader());
        DdpSegmenter segmenter = DdpSegmenter.untagged(0x47, 0, 2, new MsnSequence().next(), terminate, MULPDU);
        EmbeddedChannel mpa = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        mpa.writeOutbound(segmenter.next(ByteBufAllocator.DEFAULT));
        terminate.release();
        assertThat(Bufs.outbound(mpa)).isEqualTo(TestVectors.bytes("V-FPDU-6"));
        assertThat(mpa.finish()).isFalse();
    }

    @Test
    void versionTwoInVFpdu1IsAnUntaggedVersionErrorWithoutEcho() {
        // Negative case built from V-FPDU-1 (fpdus.txt): V-FPDU-1 with octet 2 = 0x42 (DV=2) -> DDP/untagged/0x06, no echo.
        byte[] ulpdu = Bufs.ulpduOf(TestVectors.bytes("V-FPDU-1"));
        ulpdu[0] = 0x42;
        ByteBuf in = Bufs.buf(ulpdu);
        DdpException e = catchThrowableOfType(DdpException.class, () -> DdpSegment.decode(in));
        assertThat(in.refCnt()).isEqualTo(1);
        in.release();
        assertThat(e.error()).isEqualTo(DdpError.UNTAGGED_INVALID_VERSION);
        assertThat(e.error().terminateBits()).isEqualTo(0x12060000);
        assertThat(e.hasSegment()).isFalse();
        assertThat(e.segmentHeader()).isEmpty();
        assertThat(e.segmentLength()).isEqualTo(-1);
    }
}
