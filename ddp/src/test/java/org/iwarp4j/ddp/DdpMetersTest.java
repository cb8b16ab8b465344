package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code iwarp.ddp.placed}: payload octets placed, by buffer model; failed placements count nothing. */
class DdpMetersTest {

    private static final int PD = 5;
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final StagTable table = new StagTable(16);
    private ByteBuf region;
    private ByteBuf receive;
    private DdpReceiver receiver;
    private int stag;

    @BeforeEach
    void stream() {
        region = ByteBufAllocator.DEFAULT.buffer(64).writeZero(64);
        receive = ByteBufAllocator.DEFAULT.buffer(64).writeZero(64);
        stag = table.register(PD, 0x1000, 64, EnumSet.of(Access.REMOTE_WRITE), region).stag();
        UntaggedQueue q0 = new UntaggedQueue(0, 4, m -> { });
        q0.post(ReceiveBuffer.of(1, receive, 64));
        receiver = new DdpReceiver(table, PD, table.newStreamId(), List.of(q0), DdpMeters.of(registry));
    }

    @AfterEach
    void release() {
        region.release();
        receive.release();
    }

    private double placed(String model) {
        return registry.get("iwarp.ddp.placed").tag("model", model).counter().count();
    }

    private void receive(byte[] ulpdu) throws DdpException {
        ByteBuf in = Bufs.buf(ulpdu);
        DdpSegment segment = receiver.decode(in);
        try {
            if (segment.tagged()) {
                receiver.placeTagged(segment, Access.REMOTE_WRITE);
            } else {
                receiver.placeUntagged(segment);
            }
        } finally {
            in.release();
            segment.release();
        }
    }

    @Test
    void bothModelsAreRegisteredAtZeroWithBytesAsTheBaseUnit() {
        assertThat(placed("tagged")).isZero();
        assertThat(placed("untagged")).isZero();
        assertThat(registry.get("iwarp.ddp.placed").tag("model", "tagged").counter().getId().getBaseUnit())
                .isEqualTo("bytes");
    }

    @Test
    void taggedAndUntaggedPayloadIsCountedSeparately() throws Exception {
        // A 5-octet RDMA Write (tagged, 14-octet header) and a 3-octet Send (untagged, 18-octet header):
        // only payload octets count, never the DDP headers.
        receive(Bufs.concat(Hex.decode(String.format("c140 %08x %016x", stag, 0x1008L)), new byte[5]));
        receive(Bufs.concat(Hex.decode("4143 00000000 00000000 00000001 00000000"), new byte[3]));
        assertThat(placed("tagged")).isEqualTo(5.0);
        assertThat(placed("untagged")).isEqualTo(3.0);
    }

    @Test
    void aRefusedPlacementCountsNothing() {
        // Out of bounds (DDP-R-046 tagged check): nothing placed, nothing counted.
        byte[] outside = Bufs.concat(Hex.decode(String.format("c140 %08x %016x", stag, 0x2000L)), new byte[8]);
        DdpException e = catchThrowableOfType(DdpException.class, () -> receive(outside));
        assertThat(e.error()).isEqualTo(DdpError.BASE_OR_BOUNDS_VIOLATION);
        assertThat(placed("tagged")).isZero();
    }

    @Test
    void aNullRegistryCountsNowhere() {
        assertThat(DdpMeters.of(null)).isSameAs(DdpMeters.NONE);
    }
}
