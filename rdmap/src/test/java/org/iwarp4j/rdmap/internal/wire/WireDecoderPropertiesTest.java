package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.iwarp4j.rdmap.TerminateReason;

/**
 * Fuzz-style properties of the decoders: random octets never make them throw anything but {@link
 * RdmapFormatException}, never read outside the buffer, and whatever they accept re-encodes to the
 * octets they consumed.
 */
class WireDecoderPropertiesTest {

    /**
     * Decodes {@code octets} from a buffer whose capacity is exactly their length, at a non-zero
     * reader index, so that any read past the end or before the start throws.
     */
    private static void assertTerminateDecoderIsSafe(byte[] octets) {
        byte[] framed = new byte[octets.length + 3];
        System.arraycopy(octets, 0, framed, 3, octets.length);
        ByteBuf in = Unpooled.wrappedBuffer(framed).readerIndex(3).asReadOnly();
        try {
            TerminateMessage m;
            try {
                m = TerminateMessage.decode(in);
            } catch (RdmapFormatException e) {
                // The documented failure, and only for fewer than 4 octets, with nothing consumed.
                assertThat(octets.length).isLessThan(RdmapConstants.TERMINATE_CONTROL_LENGTH);
                assertThat(in.readerIndex()).isEqualTo(3);
                return;
            }
            assertThat(octets.length).isGreaterThanOrEqualTo(RdmapConstants.TERMINATE_CONTROL_LENGTH);
            int consumed = in.readerIndex() - 3;
            assertThat(consumed).isBetween(RdmapConstants.TERMINATE_CONTROL_LENGTH, octets.length);
            assertThat(m.encodedLength()).isEqualTo(consumed);
            assertThat(Wire.written(m::encode)).isEqualTo(Arrays.copyOf(octets, consumed));
            assertThat(m.reason().description()).isNotEmpty();
            if (m.isComplete() && m.ddpHeaderIncluded()) {
                assertThat(m.terminatedDdpHeader()).isNotNull();
            }
        } finally {
            in.release();
        }
    }

    @Property(tries = 2000)
    void randomOctetsNeverBreakTheTerminateDecoder(@ForAll @Size(max = 80) byte[] octets) {
        assertTerminateDecoderIsSafe(octets);
    }

    @Provide
    Arbitrary<byte[]> plausibleTerminates() {
        // A control word with random HdrCt bits, then a tail that starts like a tagged or untagged DDP
        // header, cut at any length: this reaches every branch of the optional fields.
        Arbitrary<Integer> word = Arbitraries.integers().between(0, 0xFFFF).map(low -> 0x01000000 | low);
        Arbitrary<Boolean> tagged = Arbitraries.of(true, false);
        Arbitrary<byte[]> tail = Arbitraries.bytes().array(byte[].class).ofMaxSize(60);
        Arbitrary<Integer> cut = Arbitraries.integers().between(0, 66);
        return Combinators.combine(word, tagged, tail, cut).as((w, t, rest, n) -> {
            byte[] all = new byte[4 + 2 + rest.length];
            all[0] = (byte) (w >>> 24);
            all[1] = (byte) (w >>> 16);
            all[2] = (byte) (w >>> 8);
            all[3] = (byte) (int) w;
            System.arraycopy(rest, 0, all, 6, rest.length);
            if (rest.length > 0) {
                all[6] = (byte) (t ? (all[6] | 0x80) : (all[6] & 0x7F));
            }
            return Arrays.copyOf(all, Math.min(all.length, n));
        });
    }

    @Property(tries = 3000)
    void plausibleTerminatesNeverBreakTheDecoder(@ForAll("plausibleTerminates") byte[] octets) {
        assertTerminateDecoderIsSafe(octets);
    }

    @Provide
    Arbitrary<TerminateMessage> wellFormedTerminates() {
        Arbitrary<TerminateReason> reasons = Combinators.combine(Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(0, 15), Arbitraries.integers().between(0, 255))
                .as(TerminateReason::of);
        Arbitrary<Integer> shape = Arbitraries.integers().between(0, 3);
        Arbitrary<Integer> length = Arbitraries.integers().between(0, 0xFFFF);
        Arbitrary<byte[]> header = Arbitraries.bytes().array(byte[].class).ofSize(18);
        Arbitrary<ReadRequestHeader> rr = Combinators.combine(Arbitraries.integers(), Arbitraries.longs(),
                Arbitraries.longs().between(0, 0xFFFFFFFFL), Arbitraries.integers(), Arbitraries.longs())
                .as(ReadRequestHeader::new);
        return Combinators.combine(reasons, shape, length, header, rr).as((reason, s, len, h, r) -> {
            switch (s) {
                case 0:
                    return TerminateMessage.withoutHeaders(reason);
                case 1: {
                    byte[] tagged = Arrays.copyOf(h, 14);
                    tagged[0] |= (byte) 0x80;
                    return TerminateMessage.of(reason, true, true, false, 0, len, tagged, null);
                }
                case 2: {
                    h[0] &= 0x7F;
                    return TerminateMessage.of(reason, true, true, false, 0, len, h, null);
                }
                default: {
                    h[0] &= 0x7F;
                    return TerminateMessage.of(reason, true, true, true, 0, len, h, r);
                }
            }
        });
    }

    @Property(tries = 1000)
    void everyTerminateRoundTrips(@ForAll("wellFormedTerminates") TerminateMessage m) {
        // RDMAP-R-040: all four shapes, any numbers.
        byte[] wire = Wire.written(m::encode);
        assertThat(wire).hasSize(m.encodedLength());
        assertThat(wire.length).isIn(4, 20, 24, 52);
        int[] left = new int[1];
        TerminateMessage back = Wire.read(wire, in -> {
            TerminateMessage decoded = TerminateMessage.decode(in);
            left[0] = in.readableBytes();
            return decoded;
        });
        assertThat(back).isEqualTo(m);
        assertThat(left[0]).isZero();
    }

    @Property(tries = 500)
    void randomOctetsNeverBreakTheReadRequestDecoder(@ForAll @Size(max = 40) byte[] octets) {
        ByteBuf in = Unpooled.wrappedBuffer(octets).asReadOnly();
        try {
            ReadRequestHeader h = ReadRequestHeader.decode(in);
            assertThat(octets.length).isGreaterThanOrEqualTo(RdmapConstants.READ_REQUEST_HEADER_LENGTH);
            assertThat(Wire.written(h::encode)).isEqualTo(Arrays.copyOf(octets, RdmapConstants.READ_REQUEST_HEADER_LENGTH));
        } catch (RdmapFormatException e) {
            assertThat(octets.length).isLessThan(RdmapConstants.READ_REQUEST_HEADER_LENGTH);
            assertThat(in.readerIndex()).isZero();
        } finally {
            in.release();
        }
    }

    @Property(tries = 1000)
    void anyControlOctetIsClassifiedOneWayOrTheOther(@ForAll byte ddpControl, @ForAll byte rdmapControl,
                                                    @ForAll long qn) {
        RdmapControl.ControlCheck check = RdmapControl.check(ddpControl & 0xFF, rdmapControl & 0xFF, qn & 0xFFFFFFFFL);
        assertThat(check.isValid()).isEqualTo(check.opcode() != null);
        assertThat(check.isValid()).isNotEqualTo(check.cause() != null);
        if (check.isValid()) {
            assertThat(RdmapControl.version(rdmapControl & 0xFF)).isEqualTo(1);
            assertThat(check.opcode().tagged()).isEqualTo((ddpControl & 0x80) != 0);
        }
    }

    @Property(tries = 1000)
    void captureNeverReadsOutsideTheSegment(@ForAll @Size(max = 60) byte[] octets) {
        ByteBuf in = Unpooled.wrappedBuffer(octets).asReadOnly();
        try {
            OffendingSegment s = OffendingSegment.capture(in);
            assertThat(in.readerIndex()).isZero();
            if (s != null) {
                assertThat(s.ddpSegmentLength()).isEqualTo(octets.length);
                assertThat(s.ddpHeader()).isEqualTo(Arrays.copyOf(octets, s.tagged() ? 14 : 18));
                TerminateMessage m = TerminateBuilder.build(TerminateCause.READ_SOURCE_INVALID_STAG, s);
                assertThat(m.isComplete()).isTrue();
            } else {
                assertThat(octets.length).isLessThan(octets.length > 0 && (octets[0] & 0x80) != 0 ? 14 : 18);
            }
        } finally {
            in.release();
        }
    }
}
