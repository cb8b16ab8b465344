package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** testdata/vectors/fpdus.txt: complete FPDUs, no markers, CRC on — encoded byte for byte and decoded back. */
class FpduVectorsTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"V-FPDU-1", "V-FPDU-2", "V-FPDU-3", "V-FPDU-4", "V-FPDU-5", "V-FPDU-6",
            "V-FPDU-7", "V-FPDU-8", "V-RTR-1", "V-RTR-2", "V-RTR-3"})
    void encoderProducesTheVector(String id) {
        // MPA-R-010 FPDU format, MPA-R-011 zero PAD, MPA-R-012 pad length, MPA-R-028 CRC.
        byte[] fpdu = TestVectors.bytes(id);
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        channel.writeOutbound(Wire.buf(Wire.ulpduOf(fpdu)));
        assertThat(Wire.outbound(channel)).isEqualTo(fpdu);
        assertThat(channel.finish()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"V-FPDU-1", "V-FPDU-2", "V-FPDU-3", "V-FPDU-4", "V-FPDU-5", "V-FPDU-6",
            "V-FPDU-7", "V-FPDU-8", "V-RTR-1", "V-RTR-2", "V-RTR-3"})
    void decoderDeliversTheUlpdu(String id) {
        // MPA-R-007: the ULPDU with its length, nothing else (MPA-R-025: no CRC octets).
        byte[] fpdu = TestVectors.bytes(id);
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        channel.writeInbound(Wire.buf(fpdu));
        assertThat(Wire.inbound(channel)).containsExactly(Wire.ulpduOf(fpdu));
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void badCrcIsAcceptedWhenBothSidesTurnedCrcOff() {
        // MPA-R-013, MPA-R-027: C=0 both ways, CRC field present and not checked.
        byte[] fpdu = TestVectors.bytes("V-CRCOFF");
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, false, 0xFFFF));
        channel.writeInbound(Wire.buf(fpdu));
        assertThat(Wire.inbound(channel)).containsExactly(Wire.ulpduOf(fpdu));
        channel.checkException();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void badCrcIsErrorTwoWhenCrcIsOn() {
        // MPA-R-026, MPA-R-030, DDP-R-006: CRC mismatch = invalid FPDU, MPA error 2.
        byte[] fpdu = TestVectors.bytes("V-CRCOFF");
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        assertThat(Wire.inboundError(channel, fpdu).error()).isEqualTo(MpaError.CRC_ERROR);
        assertThat(Wire.inbound(channel)).isEmpty();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void crcOffSenderStillSendsTheCrcField() {
        // MPA-R-028: the CRC field is always there; with CRC off we send zeros.
        byte[] rtr = TestVectors.bytes("V-RTR-1");
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(false, false, false));
        channel.writeOutbound(Wire.buf(Wire.ulpduOf(rtr)));
        byte[] sent = Wire.outbound(channel);
        assertThat(sent).hasSize(rtr.length);
        assertThat(List.of(sent[16], sent[17], sent[18], sent[19])).containsOnly((byte) 0);
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void padOctetsAreIgnoredOnReceiveButCovered() {
        // MPA-R-011: pad 0xFF with a recomputed CRC is accepted, payload unchanged.
        byte[] fpdu = TestVectors.bytes("V-FPDU-5"); // ULPDU 17 -> 1 pad octet at index 19
        fpdu[19] = (byte) 0xFF;
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(fpdu, 0, 20);
        int v = (int) crc.getValue();
        fpdu[20] = (byte) v;
        fpdu[21] = (byte) (v >>> 8);
        fpdu[22] = (byte) (v >>> 16);
        fpdu[23] = (byte) (v >>> 24);
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(false, true, 0xFFFF));
        channel.writeInbound(Wire.buf(fpdu));
        assertThat(Wire.inbound(channel)).containsExactly(Wire.ulpduOf(TestVectors.bytes("V-FPDU-5")));
        channel.checkException();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void padLengthsFollowTheRule() {
        // MPA-R-012: ULPDU 17, 18, 19, 20 -> pads 1, 0, 3, 2.
        assertThat(new int[] {MpaFrameEncoder.padLength(17), MpaFrameEncoder.padLength(18),
                MpaFrameEncoder.padLength(19), MpaFrameEncoder.padLength(20)}).containsExactly(1, 0, 3, 2);
    }
}
