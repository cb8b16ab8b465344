package org.iwarp4j.rpcrdma.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.ReadChunk;
import org.junit.jupiter.api.Test;

/**
 * {@link CallAssembler#rebuild}: pulled Read chunks go back into the Payload stream at their
 * Positions (RFC 8166 §3.4.5, RPC-R-022, RPC-R-024), whatever their order in the Read list, with
 * XDR padding after a chunk that lacks it (RPC-R-026); every buffer is consumed on every path.
 */
class CallAssemblerTest {

    private static ReadChunk chunk(long position, int length) {
        return new ReadChunk(position, List.of(new RdmaSegment(1, length, 0)));
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String hex(XdrMessage call) {
        ByteBuf stream = call.stream();
        try {
            return ByteBufUtil.hexDump(stream);
        } finally {
            stream.release();
            call.release();
        }
    }

    @Test
    void chunksListedOutOfOrderAreInsertedByPosition() {
        // Read list order: Position 8 first, then Position 4 (a chunk of 3 octets, padded to 4).
        List<ReadChunk> chunks = List.of(chunk(8, 4), chunk(4, 3));
        XdrMessage call = CallAssembler.rebuild(ascii("AAAABBBB"), chunks, List.of(ascii("cccc"), ascii("ddd")));
        assertThat(hex(call)).isEqualTo(ByteBufUtil.hexDump("AAAAddd".getBytes(StandardCharsets.US_ASCII)) + "00"
                + ByteBufUtil.hexDump("ccccBBBB".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void oneChunkAtTheEndOfTheStream() {
        XdrMessage call = CallAssembler.rebuild(ascii("AAAA"), List.of(chunk(4, 2)), List.of(ascii("ee")));
        assertThat(hex(call)).isEqualTo(ByteBufUtil.hexDump("AAAAee".getBytes(StandardCharsets.US_ASCII)) + "0000");
    }

    @Test
    void theOrderByPositionIsStableAndCoversEveryChunk() {
        assertThat(CallAssembler.byPosition(List.of())).isEmpty();
        assertThat(CallAssembler.byPosition(List.of(chunk(12, 4)))).containsExactly(0);
        assertThat(CallAssembler.byPosition(List.of(chunk(20, 4), chunk(4, 4), chunk(12, 4), chunk(0, 4))))
                .containsExactly(3, 1, 2, 0);
        assertThat(CallAssembler.byPosition(List.of(chunk(4, 4), chunk(8, 4), chunk(12, 4))))
                .containsExactly(0, 1, 2);
    }

    @Test
    void aPositionBeyondTheStreamIsRefusedAndEveryBufferReleased() {
        ByteBuf base = ascii("AAAA");
        ByteBuf first = ascii("cccc");
        ByteBuf second = ascii("dddd");
        List<ByteBuf> data = new ArrayList<>(List.of(first, second));
        assertThatThrownBy(() -> CallAssembler.rebuild(base, List.of(chunk(4, 4), chunk(16, 4)), data))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Position 16");
        assertThat(base.refCnt()).isZero();
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
    }
}
