package org.iwarp4j.conformance.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.ddp.DdpHeader;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
import org.iwarp4j.rdmap.TerminateReason;
import org.junit.jupiter.api.Test;

/** {@link Wire.Message}: what the probe asks of a received ULPDU, octet by octet. */
class ProbeWireTest {

    private static final byte[] CONTROL = {0x11, 0, (byte) 0xC0, 0};

    private static byte[] segment(DdpHeader header, byte[] payload) {
        ByteBuf buf = Unpooled.buffer();
        header.encode(buf);
        buf.writeBytes(payload);
        return ByteBufUtil.getBytes(buf);
    }

    /**
     * RDMAP-R-025: untagged, QN 2, MSN 1, MO 0; RDMAP-R-002: RDMAP version 1. L=0 is not among
     * the problems (one segment with L set is practice, not RFC text): {@code last()} reports it.
     */
    @Test
    void aTerminateIsCheckedAgainstRfc5040Section54() {
        ByteBuf ours = Wire.terminate(TerminateReason.LLP_NO_MATCHING_RTR);
        try {
            assertThat(Wire.parse(ByteBufUtil.getBytes(ours)).terminateFramingProblem()).isEmpty();
        } finally {
            ours.release();
        }
        assertThat(Wire.parse(segment(new TaggedHeader(true, 0x47, 0, 0), CONTROL)).terminateFramingProblem())
                .isEqualTo("tagged");
        assertThat(Wire.parse(segment(new UntaggedHeader(false, 0x47, 0, 0, 2, 4), CONTROL)).terminateFramingProblem())
                .isEqualTo("QN 0, MSN 2, MO 4");
        assertThat(Wire.parse(segment(new UntaggedHeader(false, 0x47, 0, 0, 2, 4), CONTROL)).last()).isFalse();
        assertThat(Wire.parse(segment(new UntaggedHeader(true, 0x07, 0, 2, 1, 0), CONTROL)).terminateFramingProblem())
                .isEqualTo("RDMAP version 0");
    }

    /** RFC 5040 §5.2.1: the answer to a zero-length Read is tagged, carries the Read's sink STag, no data, L=1. */
    @Test
    void anEmptyReadResponseMustCarryTheSinkStagAndL() {
        assertThat(Wire.parse(segment(new TaggedHeader(true, 0x42, 1, 0), new byte[0])).isEmptyReadResponseTo(1)).isTrue();
        assertThat(Wire.parse(segment(new TaggedHeader(true, 0x42, 7, 0), new byte[0])).isEmptyReadResponseTo(1)).isFalse();
        assertThat(Wire.parse(segment(new TaggedHeader(false, 0x42, 1, 0), new byte[0])).isEmptyReadResponseTo(1)).isFalse();
        assertThat(Wire.parse(segment(new TaggedHeader(true, 0x42, 1, 0), new byte[1])).isEmptyReadResponseTo(1)).isFalse();
    }

    @Test
    void onlyUntaggedSendsAreThePeersOwnMessages() {
        assertThat(Wire.parse(segment(new UntaggedHeader(true, 0x43, 0, 0, 1, 0), new byte[3])).isSend()).isTrue();
        assertThat(Wire.parse(segment(new UntaggedHeader(true, 0x45, 0, 0, 1, 0), new byte[0])).isSend()).isTrue();
        assertThat(Wire.parse(segment(new UntaggedHeader(true, 0x47, 0, 2, 1, 0), CONTROL)).isSend()).isFalse();
        assertThat(Wire.parse(segment(new TaggedHeader(true, 0x42, 1, 0), new byte[0])).isSend()).isFalse();
    }
}
