package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One stream's Data Sink: dispatch by T (DDP-R-012), QN validity, and what happens after an error (§7.1). */
class DdpReceiverTest {

    private static final int PD = 3;
    private final StagTable table = new StagTable(16);
    private final List<UntaggedMessage> sends = new ArrayList<>();
    private ByteBuf region;
    private ByteBuf receive;
    private DdpReceiver receiver;
    private int stag;

    @BeforeEach
    void stream() {
        region = ByteBufAllocator.DEFAULT.buffer(64).writeZero(64);
        receive = ByteBufAllocator.DEFAULT.buffer(64).writeZero(64);
        stag = table.register(PD, 0x1000, 64, EnumSet.of(Access.REMOTE_WRITE), region).stag();
        UntaggedQueue q0 = new UntaggedQueue(0, 4, sends::add);
        q0.post(ReceiveBuffer.of(1, receive, 64));
        receiver = new DdpReceiver(table, PD, table.newStreamId(),
                List.of(q0, new UntaggedQueue(1, 1, m -> { }), new UntaggedQueue(2, 1, m -> { })));
    }

    @AfterEach
    void release() {
        region.release();
        receive.release();
    }

    private byte[] write(long to, byte... payload) {
        return Bufs.concat(new byte[] {(byte) 0xC1, 0x40}, Hex.decode(String.format("%08x %016x", stag, to)), payload);
    }

    private static byte[] send(int qn, int msn, int mo, boolean last, byte... payload) {
        return Bufs.concat(Hex.decode(String.format("%02x43 00000000 %08x %08x %08x", last ? 0x41 : 0x01, qn, msn, mo)),
                payload);
    }

    /** Decodes and places one ULPDU as the RDMAP engine would; returns whether it was placed. */
    private boolean receive(byte[] ulpdu) throws DdpException {
        ByteBuf in = Bufs.buf(ulpdu);
        DdpSegment segment = null;
        try {
            segment = receiver.decode(in);
            if (segment == null) {
                return false;
            }
            return segment.tagged() ? receiver.placeTagged(segment, Access.REMOTE_WRITE) : receiver.placeUntagged(segment);
        } finally {
            in.release();
            if (segment != null) {
                segment.release();
            }
        }
    }

    @Test
    void theTBitChoosesTheBufferModel() throws Exception {
        // DDP-R-012: T=1 -> tagged buffer, T=0 -> untagged buffer.
        assertThat(receive(write(0x1010, (byte) 7))).isTrue();
        assertThat(region.getByte(0x10)).isEqualTo((byte) 7);
        assertThat(receive(send(0, 1, 0, true, (byte) 9))).isTrue();
        assertThat(receive.getByte(0)).isEqualTo((byte) 9);
        assertThat(sends).hasSize(1);
    }

    @Test
    void anUnknownQnIsInvalidQnWithTheHeaderEchoed() {
        // DDP-R-046 (1): QN=7 -> 0x2/0x01; the report carries the 18 header octets and the segment length.
        byte[] ulpdu = send(7, 1, 0, true, (byte) 1, (byte) 2);
        DdpException e = catchThrowableOfType(DdpException.class, () -> receive(ulpdu));
        assertThat(e.error()).isEqualTo(DdpError.INVALID_QN);
        assertThat(e.segmentHeader()).isEqualTo(Arrays.copyOf(ulpdu, 18));
        assertThat(e.segmentLength()).isEqualTo(20);
        assertThat(receiver.failure()).isSameAs(e);
    }

    @Test
    void afterAnErrorLaterSegmentsAreDroppedSilently() throws Exception {
        // DDP-R-049: cease placing, report once, silently drop every later segment (even valid ones):
        // memory stays untouched and nothing more is delivered. DDP-R-039: nothing is closed by DDP.
        DdpException first = catchThrowableOfType(DdpException.class, () -> receive(write(0x2000, (byte) 1)));
        assertThat(first.error()).isEqualTo(DdpError.BASE_OR_BOUNDS_VIOLATION);
        assertThat(receiver.isStopped()).isTrue();
        byte[] regionBefore = Bufs.peek(region);
        assertThat(receive(write(0x1000, (byte) 5))).isFalse();
        assertThat(receive(send(0, 1, 0, true, (byte) 5))).isFalse();
        assertThat(receive(send(9, 1, 0, true, (byte) 5))).as("no second report").isFalse();
        assertThat(Bufs.peek(region)).isEqualTo(regionBefore);
        assertThat(receive.getByte(0)).isZero();
        assertThat(sends).isEmpty();
        assertThat(receiver.failure()).isSameAs(first);
    }

    @Test
    void aVersionErrorAlsoStopsTheStream() throws Exception {
        // DDP-R-017 + DDP-R-043: an invalid header field is fatal; later ULPDUs are not even decoded.
        byte[] bad = send(0, 1, 0, true, (byte) 1);
        bad[0] = 0x40; // DV = 0
        DdpException e = catchThrowableOfType(DdpException.class, () -> receive(bad));
        assertThat(e.error()).isEqualTo(DdpError.UNTAGGED_INVALID_VERSION);
        assertThat(e.hasSegment()).isFalse();
        assertThat(receive(send(0, 1, 0, true, (byte) 1))).isFalse();
        assertThat(sends).isEmpty();
    }

    @Test
    void theUlpCanStopPlacement() throws Exception {
        // RDMAP-R-035: after a Terminate (an RDMAP error), DDP places nothing more.
        receiver.stop();
        assertThat(receive(write(0x1000, (byte) 5))).isFalse();
        assertThat(region.getByte(0)).isZero();
        assertThat(receiver.failure()).isNull();
    }

    @Test
    void aZeroLengthWriteToAnUnregisteredStagIsAccepted() throws Exception {
        // DDP-R-031: zero-length Write with STag 0xDEADBEEF (unregistered) -> accepted, no error.
        byte[] rtr = Bufs.concat(Hex.decode("c140 deadbeef ffffffff ffffffff"));
        assertThat(receive(rtr)).isTrue();
        assertThat(receiver.isStopped()).isFalse();
    }

    @Test
    void reservedControlBitsDoNotMatter() throws Exception {
        // DDP-R-016 end to end: control 0x7D untagged is placed and delivered normally.
        byte[] ulpdu = send(0, 1, 0, true, (byte) 4, (byte) 2);
        ulpdu[0] = 0x7D;
        assertThat(receive(ulpdu)).isTrue();
        assertThat(sends).extracting(UntaggedMessage::length).containsExactly(2L);
    }

    @Test
    void queuesAreFoundByQn() {
        assertThat(receiver.queue(1).queueNumber()).isEqualTo(1);
        assertThat(receiver.queue(3)).isNull();
        assertThat(receiver.protectionDomain()).isEqualTo(PD);
        assertThat(receiver.stagTable()).isSameAs(table);
        assertThatThrownBy(() -> new DdpReceiver(table, PD, 1,
                List.of(new UntaggedQueue(0, 1, m -> { }), new UntaggedQueue(0, 1, m -> { }))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
