package org.iwarp4j.ddp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.Arrays;
import org.iwarp4j.ddp.DdpError;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the DDP segment header codecs (RFC 5041 §4): the input is one ULPDU as MPA
 * delivers it. Seeds: ULPDUs of both directions of the Linux siw rping, perftest and NFS captures (tagged Writes and
 * Read Responses, untagged Sends, Read Requests and Terminates).
 *
 * <p>Properties: {@link DdpSegment#decode} either decodes or throws the {@link DdpException} it
 * documents, an invalid version or a segment shorter than its header, which carries no segment
 * (nothing to echo); a decoded header re-encodes to the received octets with only the reserved
 * control bits cleared (DDP-R-016, DDP-R-017), and {@code headerOctets()} keeps them as received;
 * lengths add up; the segment and the ULPDU are both released in the end.
 */
class DdpSegmentFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf ulpdu = alloc.buffer(input.length).writeBytes(input);
        try {
            DdpSegment segment;
            try {
                segment = DdpSegment.decode(ulpdu);
            } catch (DdpException e) {
                assertThat(e.error()).isIn(DdpError.TAGGED_INVALID_VERSION, DdpError.UNTAGGED_INVALID_VERSION);
                assertThat(e.hasSegment()).isFalse();
                assertThat(ulpdu.refCnt()).isEqualTo(1);
                return;
            }
            try {
                int headerLength = segment.header().length();
                assertThat(ulpdu.readerIndex()).as("decode keeps the ULPDU's indexes").isZero();
                assertThat(segment.segmentLength()).isEqualTo(input.length);
                assertThat(segment.payloadLength()).isEqualTo(input.length - headerLength);
                assertThat(ByteBufUtil.getBytes(segment.payload()))
                        .isEqualTo(Arrays.copyOfRange(input, headerLength, input.length));
                assertThat(segment.headerOctets()).isEqualTo(Arrays.copyOf(input, headerLength));
                ByteBuf encoded = alloc.buffer(headerLength);
                try {
                    segment.header().encode(encoded);
                    byte[] expected = Arrays.copyOf(input, headerLength);
                    expected[0] &= (byte) 0xC3;
                    assertThat(ByteBufUtil.getBytes(encoded)).isEqualTo(expected);
                } finally {
                    encoded.release();
                }
            } finally {
                assertThat(segment.release()).isFalse();
            }
        } finally {
            assertThat(ulpdu.release()).as("the segment gave back its reference").isTrue();
        }
        FuzzInput.assertNothingHeld(alloc);
    }
}
