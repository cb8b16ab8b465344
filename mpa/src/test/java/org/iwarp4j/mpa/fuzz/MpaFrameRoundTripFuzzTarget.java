package org.iwarp4j.mpa.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target: whatever ULPDUs {@link MpaFrameEncoder} frames (markers on or off, CRC on or
 * off), {@code MpaFrameDecoder} gives back unchanged and without error, however the stream is cut
 * into reads (RFC 5044 §5-§6 both ways). Input layout: octet 0 = flags (bit 0 markers, bit 1
 * CRC), octet 1 = chunking seed, then ULPDUs, each as a length (two octets, 1 + low 11 bits)
 * and its octets. Marker spacing is exercised once the stream passes 512 octets.
 */
class MpaFrameRoundTripFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 2) {
            return;
        }
        boolean markers = (input[0] & 1) != 0;
        boolean crc = (input[0] & 2) != 0;
        List<byte[]> sent = new ArrayList<>();
        for (int at = 2; at + 2 <= input.length; ) {
            int n = 1 + (((input[at] & 0x07) << 8) | (input[at + 1] & 0xFF));
            at += 2;
            byte[] ulpdu = Arrays.copyOfRange(input, at, Math.min(input.length, at + n));
            at += ulpdu.length;
            if (ulpdu.length > 0) {
                sent.add(ulpdu);
            }
        }
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        EmbeddedChannel encoder = FuzzInput.channel(alloc, new MpaFrameEncoder(markers, crc, false));
        for (byte[] ulpdu : sent) {
            assertThat(encoder.writeOutbound(alloc.buffer(ulpdu.length).writeBytes(ulpdu))).isTrue();
        }
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(0);
        wire.write(0);
        for (Object o; (o = encoder.readOutbound()) != null; ) {
            ByteBuf fpdu = (ByteBuf) o;
            wire.writeBytes(ByteBufUtil.getBytes(fpdu));
            fpdu.release();
        }
        assertThat(encoder.finish()).isFalse();
        FuzzInput.assertNothingHeld(alloc);
        MpaFrameDecoderFuzzTarget.Outcome received = MpaFrameDecoderFuzzTarget.run(markers, crc, 0xFFFF, wire.toByteArray(), 2, input[1] & 0xFF);
        assertThat(received.error()).isNull();
        assertThat(received.sameAs(new MpaFrameDecoderFuzzTarget.Outcome(sent, null))).as("ULPDUs back as sent").isTrue();
    }
}
