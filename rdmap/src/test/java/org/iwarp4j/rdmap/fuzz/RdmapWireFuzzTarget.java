package org.iwarp4j.rdmap.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.iwarp4j.rdmap.internal.wire.RdmapControl;
import org.iwarp4j.rdmap.internal.wire.RdmapFormatException;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the RDMAP header decoders of {@code internal.wire} (RFC 5040 §4). Octet 0 of
 * the input picks the decoder, the rest is what it reads: 0 = {@link TerminateMessage} (§4.8),
 * 1 = {@link ReadRequestHeader} (§4.4), 2 = {@link RdmapControl#check} on a DDP control octet, an
 * RDMAP control octet and a 32-bit QN (§4.1, §4.2). Seeds: the control octets of each opcode and the Read
 * Request headers of the Linux siw rping and ib_read_bw captures (also inside a Terminate), Terminates with and without the optional fields (including siw's R-without-header
 * form), Send and Read Request control octets.
 *
 * <p>Properties: the only exception is {@link RdmapFormatException}, thrown before anything is
 * consumed; a decoded Terminate re-encodes to exactly the octets it consumed (the decoder keeps
 * HdrCt bits and fields as sent), and {@code encodedLength()} says so; a Read Request header
 * round-trips; a control check is either valid with an opcode or invalid with a Terminate cause.
 */
class RdmapWireFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf in = alloc.buffer(input.length - 1).writeBytes(input, 1, input.length - 1);
        ByteBuf out = alloc.buffer();
        try {
            switch (input[0] & 3) {
                case 0 -> terminate(in, out);
                case 1 -> readRequest(in, out);
                default -> control(in);
            }
        } finally {
            in.release();
            out.release();
        }
        FuzzInput.assertNothingHeld(alloc);
    }

    private static void terminate(ByteBuf in, ByteBuf out) {
        TerminateMessage t;
        try {
            t = TerminateMessage.decode(in);
        } catch (RdmapFormatException e) {
            assertThat(in.readerIndex()).isZero();
            assertThat(in.readableBytes()).isLessThan(4);
            return;
        }
        int consumed = in.readerIndex();
        assertThat(t.encodedLength()).isEqualTo(consumed);
        t.encode(out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(ByteBufUtil.getBytes(in, 0, consumed));
        assertThat(t.reason()).isNotNull();
        if (t.isComplete() && t.ddpHeaderIncluded()) {
            assertThat(t.terminatedDdpHeader().length).isIn(14, 18);
        }
        assertThat(t.toString()).isNotEmpty();
    }

    private static void readRequest(ByteBuf in, ByteBuf out) {
        ReadRequestHeader h;
        try {
            h = ReadRequestHeader.decode(in);
        } catch (RdmapFormatException e) {
            assertThat(in.readerIndex()).isZero();
            assertThat(in.readableBytes()).isLessThan(28);
            return;
        }
        assertThat(in.readerIndex()).isEqualTo(28);
        h.encode(out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(ByteBufUtil.getBytes(in, 0, 28));
        if (h.readMessageSize() > 0) {
            assertThat(h.advancedBy(h.readMessageSize()).isZeroLength()).isTrue();
        }
    }

    private static void control(ByteBuf in) {
        if (in.readableBytes() < 6) {
            return;
        }
        RdmapControl.ControlCheck check = RdmapControl.check(in.getUnsignedByte(0), in.getUnsignedByte(1),
                in.getUnsignedInt(2));
        if (check.isValid()) {
            assertThat(check.opcode()).isNotNull();
        } else {
            assertThat(check.cause()).isNotNull();
            assertThat(check.cause().reason()).isNotNull();
        }
        assertThat(check.toString()).isNotEmpty();
    }
}
