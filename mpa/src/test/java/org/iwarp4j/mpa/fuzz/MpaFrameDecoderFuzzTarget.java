package org.iwarp4j.mpa.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer targets for the FPDU decoder of Full Operation (RFC 5044 §5, §6), markers on or off, CRC
 * on or off, the stream cut into any TCP reads. Input layout: octet 0 = flags (bit 0 markers,
 * bit 1 CRC, bit 2 a receive maximum of 1000 instead of 65535), octet 1 = chunking seed ({@link
 * FuzzInput#chunkSizes}), then the stream. Regression mode (every build) runs the seeds in {@code
 * MpaFrameDecoderFuzzTargetInputs/}: FPDU streams cut from the Linux siw rping (CRC off and on) and
 * NFS captures, the RFC known-answer FPDUs, and marker streams made by {@code MpaFrameEncoder}.
 *
 * <p>Properties, for every input: the only exception the decoder raises is {@link MpaException}
 * with an RFC 5044 §8 code it documents (CRC error, marker error, connection lost), at most once,
 * and nothing is delivered after it (MPA-R-074); the outcome does not depend on how the stream was
 * cut into reads (MPA-R-037); no delivered ULPDU is longer than the receive maximum; every buffer
 * allocated while decoding is released. {@link MpaFrameRoundTripFuzzTarget} checks the decoder
 * against the encoder.
 */
class MpaFrameDecoderFuzzTarget {

    private static final EnumSet<MpaError> DOCUMENTED =
            EnumSet.of(MpaError.CRC_ERROR, MpaError.MARKER_ERROR, MpaError.CONNECTION_LOST);

    record Outcome(List<byte[]> ulpdus, MpaError error) {

        boolean sameAs(Outcome o) {
            if (error != o.error || ulpdus.size() != o.ulpdus.size()) {
                return false;
            }
            for (int i = 0; i < ulpdus.size(); i++) {
                if (!Arrays.equals(ulpdus.get(i), o.ulpdus.get(i))) {
                    return false;
                }
            }
            return true;
        }
    }

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 2) {
            return;
        }
        boolean markers = (input[0] & 1) != 0;
        boolean crc = (input[0] & 2) != 0;
        int maxUlpdu = (input[0] & 4) != 0 ? 1000 : 0xFFFF;
        int chunkSeed = input[1] & 0xFF;
        Outcome chunked = run(markers, crc, maxUlpdu, input, 2, chunkSeed);
        for (byte[] ulpdu : chunked.ulpdus) {
            assertThat(ulpdu.length).isLessThanOrEqualTo(maxUlpdu);
        }
        if (chunkSeed != 0) {
            Outcome whole = run(markers, crc, maxUlpdu, input, 2, 0);
            assertThat(chunked.sameAs(whole)).as("the same stream in one read and in pieces decodes alike").isTrue();
        }
    }

    static Outcome run(boolean markers, boolean crc, int maxUlpdu, byte[] stream, int offset, int chunkSeed) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        Recorder recorder = new Recorder();
        EmbeddedChannel channel = FuzzInput.channel(alloc, new MpaFrameDecoder(markers, crc, maxUlpdu), recorder);
        FuzzInput.feed(channel, stream, offset, chunkSeed);
        channel.close();
        channel.finishAndReleaseAll();
        FuzzInput.assertNothingHeld(alloc);
        MpaError error = null;
        if (!recorder.errors.isEmpty()) {
            assertThat(recorder.errors).as("one error, then silence (MPA-R-074)").hasSize(1);
            Throwable t = recorder.errors.get(0);
            if (!(t instanceof MpaException)) {
                throw new AssertionError("undocumented exception from MpaFrameDecoder", t);
            }
            error = ((MpaException) t).error();
            assertThat(error).isIn(DOCUMENTED);
            assertThat(recorder.ulpdus).hasSize(recorder.ulpdusBeforeFirstError);
        }
        return new Outcome(recorder.ulpdus, error);
    }
}
