package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.junit.jupiter.api.Test;

/** Requester and Responder over loopback: every way a Call and a Reply can travel. */
class RpcRdmaLoopbackTest {

    private static ByteBuf random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return Unpooled.wrappedBuffer(b);
    }

    @Test
    void inlineCallAndReply() throws Exception { // RPC-R-002, RPC-R-014
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            await(p.echo.nullCall());
            ByteBuf data = random(100, 1);
            ByteBuf back = await(p.echo.echo(data.retainedDuplicate()));
            try {
                assertThat(ByteBufUtil.equals(back, data)).isTrue();
            } finally {
                back.release();
                data.release();
            }
            assertThat(p.requester.callInlineThreshold()).isEqualTo(1024);
            assertThat(p.requester.replyInlineThreshold()).isEqualTo(1024);
            assertThat(p.responder().replyChunkReplies()).isZero();
        }
    }

    @Test
    void longCallAndLongReplyThroughTheReplyChunk() throws Exception { // RPC-R-031, RPC-R-034, RPC-R-054
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            ByteBuf data = random(5000, 2);
            ByteBuf back = await(p.echo.echo(data.retainedDuplicate()));
            try {
                assertThat(ByteBufUtil.equals(back, data)).isTrue();
            } finally {
                back.release();
                data.release();
            }
            assertThat(p.responder().replyChunkReplies()).isEqualTo(1);
        }
    }

    @Test
    void sinkDataTravelsInAReadChunk() throws Exception { // RPC-R-017, RPC-R-022
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxSegmentSize(4096))) {
            ByteBuf data = random(100_001, 3);
            int crc = EchoProgram.crc32c(data);
            SinkResult r = await(p.echo.sink(data));
            assertThat(r.length()).isEqualTo(100_001);
            assertThat(r.crc32c()).isEqualTo(crc);
        }
    }

    @Test
    void sourceResultTravelsInAWriteChunk() throws Exception { // RPC-R-048
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxSegmentSize(4096))) {
            ByteBuf back = await(p.echo.source(100_003));
            try {
                assertThat(back.readableBytes()).isEqualTo(100_003);
                assertThat(EchoProgram.isSource(back)).isTrue();
            } finally {
                back.release();
            }
        }
    }
}
