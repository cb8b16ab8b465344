package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import org.iwarp4j.mpa.internal.MpaMeters;
import org.junit.jupiter.api.Test;

/**
 * MPA's meters move exactly when their event happens: {@code iwarp.mpa.fpdus} / {@code bytes} per
 * FPDU sent and received (octets as on the wire, markers and CRC included), {@code iwarp.mpa.errors}
 * once per refused FPDU by type: crc (MPA-R-030), marker (MPA-R-017) and length (a ULPDU_Length
 * over the receive maximum).
 */
class MpaMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final MpaMeters meters = MpaMeters.of(registry);

    private double count(String name, String key, String value) {
        return registry.get(name).tag(key, value).counter().count();
    }

    private byte[] encode(boolean markers, boolean crc, byte[]... ulpdus) {
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false, meters));
        for (byte[] u : ulpdus) {
            encoder.writeOutbound(Wire.buf(u));
        }
        byte[] wire = Wire.outbound(encoder);
        encoder.finishAndReleaseAll();
        return wire;
    }

    private EmbeddedChannel decoder(boolean markers, boolean crc, int max) {
        return new EmbeddedChannel(new MpaFrameDecoder(markers, crc, max, meters, null));
    }

    @Test
    void fpdusAndOctetsEachWay() {
        byte[] wire = encode(true, true, new byte[1000], new byte[3]);
        assertThat(count("iwarp.mpa.fpdus", "direction", "tx")).isEqualTo(2);
        assertThat(count("iwarp.mpa.bytes", "direction", "tx")).isEqualTo(wire.length);
        EmbeddedChannel in = decoder(true, true, 65535);
        Wire.feed(in, wire, 700);
        assertThat(Wire.inbound(in)).hasSize(2);
        assertThat(count("iwarp.mpa.fpdus", "direction", "rx")).isEqualTo(2);
        assertThat(count("iwarp.mpa.bytes", "direction", "rx")).isEqualTo(wire.length);
        assertThat(count("iwarp.mpa.errors", "type", "crc") + count("iwarp.mpa.errors", "type", "marker")
                + count("iwarp.mpa.errors", "type", "length")).isZero();
        assertThat(in.finish()).isFalse();
    }

    @Test
    void aCrcErrorCountsOnceAndNothingIsReceived() {
        byte[] wire = encode(false, true, new byte[100], new byte[100]);
        wire[10] ^= 1; // inside the first ULPDU
        EmbeddedChannel in = decoder(false, true, 65535);
        assertThat(Wire.inboundError(in, wire).error()).isEqualTo(MpaError.CRC_ERROR);
        assertThat(count("iwarp.mpa.errors", "type", "crc")).isEqualTo(1);
        assertThat(count("iwarp.mpa.fpdus", "direction", "rx")).isZero();
        in.finishAndReleaseAll();
    }

    @Test
    void aMarkerErrorCountsAsMarker() {
        // CRC off, so that the marker check is what finds it: FPDUPTR of the marker at offset 512.
        byte[] wire = encode(true, false, new byte[2000]);
        wire[515] ^= 4;
        EmbeddedChannel in = decoder(true, false, 65535);
        assertThat(Wire.inboundError(in, wire).error()).isEqualTo(MpaError.MARKER_ERROR);
        assertThat(count("iwarp.mpa.errors", "type", "marker")).isEqualTo(1);
        assertThat(count("iwarp.mpa.errors", "type", "crc")).isZero();
        in.finishAndReleaseAll();
    }

    @Test
    void aLengthOverTheMaximumCountsAsLength() {
        byte[] wire = encode(false, true, new byte[200]);
        EmbeddedChannel in = decoder(false, true, 128);
        assertThat(Wire.inboundError(in, wire).error()).isEqualTo(MpaError.MARKER_ERROR);
        assertThat(count("iwarp.mpa.errors", "type", "length")).isEqualTo(1);
        assertThat(List.of(count("iwarp.mpa.errors", "type", "crc"), count("iwarp.mpa.errors", "type", "marker")))
                .containsOnly(0.0);
        in.finishAndReleaseAll();
    }
}
