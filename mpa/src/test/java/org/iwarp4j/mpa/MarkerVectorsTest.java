package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.TestData;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Markers (RFC 5044 §4.2-§4.4): RFC 5044 Figures 5 and 6 (V-MPA-F5, V-MPA-F6 in
 * testdata/vectors/mpa-fpdus.txt) and the derived 1060-octet marker stream
 * (testdata/vectors/marker-stream.hex), encoded byte for byte and decoded at every chunk size.
 */
class MarkerVectorsTest {

    /** The four untagged Sends of marker-stream.hex: DDP L=1, QN 0, MSN 1..4, MO 0, zero payloads. */
    static List<byte[]> markerStreamUlpdus() {
        int[] payloads = {582, 24, 336, 8};
        List<byte[]> ulpdus = new ArrayList<>();
        for (int i = 0; i < payloads.length; i++) {
            byte[] u = new byte[18 + payloads[i]];
            u[0] = 0x41; // DDP: L=1, DV=1
            u[1] = 0x43; // RDMAP: RV=1, Send
            u[13] = (byte) (i + 1); // MSN
            ulpdus.add(u);
        }
        return ulpdus;
    }

    static byte[] markerStream() throws IOException {
        return Hex.decodeDump(Files.readString(TestData.vector("marker-stream.hex"),
                StandardCharsets.US_ASCII));
    }

    @Test
    void encoderReproducesTheMarkerStream() throws IOException {
        // MPA-R-015, MPA-R-016, MPA-R-017, MPA-R-018, MPA-R-019, MPA-R-020, MPA-R-021, MPA-R-029:
        // markers at 0, 512, 1024 with the right FPDUPTRs, inside the right CRCs.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        for (byte[] u : markerStreamUlpdus()) {
            channel.writeOutbound(Wire.buf(u));
        }
        assertThat(Hex.encode(Wire.outbound(channel))).isEqualTo(Hex.encode(markerStream()));
        assertThat(channel.finish()).isFalse();
    }

    @ParameterizedTest(name = "chunk {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 511, 512, 513, 1060})
    void decoderRecoversTheFourUlpdusAtAnyChunking(int chunk) throws IOException {
        // MPA-R-022 (markers removed), MPA-R-037 and MPA-R-078 (alignment lost), MPA-R-038, MPA-R-040.
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        Wire.feed(channel, markerStream(), chunk);
        List<byte[]> got = Wire.inbound(channel);
        assertThat(got).hasSize(4);
        List<byte[]> want = markerStreamUlpdus();
        for (int i = 0; i < 4; i++) {
            assertThat(got.get(i)).isEqualTo(want.get(i));
        }
        channel.checkException();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void figureFiveFirstFpduWithLeadingMarker() {
        // MPA-R-019, MPA-R-064: the first octets of Full Operation are a marker 00000000; MPA-R-029 rule 2.
        byte[] f5 = TestVectors.bytes("V-MPA-F5");
        byte[] ulpdu = java.util.Arrays.copyOfRange(f5, 6, 6 + 42);
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        encoder.writeOutbound(Wire.buf(ulpdu));
        assertThat(Wire.outbound(encoder)).isEqualTo(f5);
        assertThat(encoder.finish()).isFalse();

        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        decoder.writeInbound(Wire.buf(f5));
        assertThat(Wire.inbound(decoder)).containsExactly(ulpdu);
        assertThat(decoder.finish()).isFalse();
    }

    @Test
    void figureSixSecondFpduWithInnerMarker() {
        // MPA-R-017: FPDU at 0x1EC, marker at 0x200 with FPDUPTR 0x14; MPA-R-029 inner marker in CRC.
        byte[] f6 = TestVectors.bytes("V-MPA-F6");
        byte[] first = new byte[482]; // 4 marker + 2 + 482 + 0 pad + 4 CRC = 492 = 0x1EC octets
        byte[] ulpdu = Wire.concat(java.util.Arrays.copyOfRange(f6, 2, 20),
                java.util.Arrays.copyOfRange(f6, 24, 48));
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(true, true, false));
        encoder.writeOutbound(Wire.buf(first));
        byte[] firstFpdu = Wire.outbound(encoder);
        assertThat(firstFpdu).hasSize(0x1EC);
        encoder.writeOutbound(Wire.buf(ulpdu));
        assertThat(Wire.outbound(encoder)).isEqualTo(f6);
        assertThat(encoder.finish()).isFalse();

        EmbeddedChannel decoder = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        Wire.feed(decoder, Wire.concat(firstFpdu, f6), 3);
        List<byte[]> got = Wire.inbound(decoder);
        assertThat(got).hasSize(2);
        assertThat(got.get(1)).isEqualTo(ulpdu);
        assertThat(decoder.finish()).isFalse();
    }

    @Test
    void lowTwoPointerBitsAndReservedOctetsAreIgnored() throws IOException {
        // MPA-R-014: marker FF FF 01 FF (pointer 0x1FF) is read as 0x1FC; CRC recomputed.
        byte[] stream = markerStream();
        replaceMarkerAndFixCrc(stream, 512, new byte[] {(byte) 0xFF, (byte) 0xFF, 0x01, (byte) 0xFF});
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        channel.writeInbound(Wire.buf(stream));
        assertThat(Wire.inbound(channel)).hasSize(4);
        channel.checkException();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void markerThatDisagreesWithTheLengthIsErrorThree() throws IOException {
        // MPA-R-071 (we check every marker), marker stream: marker at 512 = 0000 01f8 -> error 3.
        byte[] stream = markerStream();
        replaceMarkerAndFixCrc(stream, 512, new byte[] {0, 0, 0x01, (byte) 0xF8});
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        assertThat(Wire.inboundError(channel, stream).error()).isEqualTo(MpaError.MARKER_ERROR);
        // MPA-R-074: after the error on FPDU 1 none of FPDUs 2-4 is delivered.
        assertThat(Wire.inbound(channel)).isEmpty();
        // MPA-R-075: MPA does not close the connection itself.
        assertThat(channel.isOpen()).isTrue();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void leadingMarkerMustPointAtZero() throws IOException {
        // MPA-R-018: the marker between FPDUs 3 and 4 (offset 1024) has FPDUPTR 0.
        byte[] stream = markerStream();
        stream[1024 + 3] = 0x04;
        // FPDU 4 starts its CRC coverage at that marker (offset 1024) and ends before 1056.
        fixCrc(stream, 1024, 1056);
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        assertThat(Wire.inboundError(channel, stream).error()).isEqualTo(MpaError.MARKER_ERROR);
        assertThat(Wire.inbound(channel)).hasSize(3);
        assertThat(channel.finish()).isFalse();
    }

    @ParameterizedTest(name = "octet {0}")
    @ValueSource(ints = {0, 1, 4, 5, 6, 20, 40, 47, 48, 51})
    void flippingAnyBitOfFigureFiveIsErrorTwo(int octet) {
        // MPA-R-030: flip one bit in the marker, length, payload, or CRC -> error 2. More stream
        // follows, so that a flipped length that claims a longer FPDU is checked too.
        byte[] f5 = TestVectors.bytes("V-MPA-F5");
        f5[octet] ^= 0x10;
        EmbeddedChannel channel = new EmbeddedChannel(new MpaFrameDecoder(true, true, 0xFFFF));
        assertThat(Wire.inboundError(channel, Wire.concat(f5, new byte[8192])).error())
                .isEqualTo(MpaError.CRC_ERROR);
        assertThat(Wire.inbound(channel)).isEmpty();
        assertThat(channel.finish()).isFalse();
    }

    /** Writes {@code marker} at {@code offset} and recomputes the CRC of the FPDU that holds it (FPDU 1 here). */
    private static void replaceMarkerAndFixCrc(byte[] stream, int offset, byte[] marker) {
        System.arraycopy(marker, 0, stream, offset, 4);
        fixCrc(stream, 0, 612);
    }

    private static void fixCrc(byte[] stream, int from, int crcAt) {
        CRC32C crc = new CRC32C();
        crc.update(stream, from, crcAt - from);
        int v = (int) crc.getValue();
        stream[crcAt] = (byte) v;
        stream[crcAt + 1] = (byte) (v >>> 8);
        stream[crcAt + 2] = (byte) (v >>> 16);
        stream[crcAt + 3] = (byte) (v >>> 24);
    }
}
