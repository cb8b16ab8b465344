package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Random;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;
import org.junit.jupiter.api.Test;

/**
 * Requester and Responder over loopback, with every message checked as it crossed: the octets of
 * each RDMA Send (tapped where the verbs post and receive them) and the RDMA Reads and Writes.
 */
class RpcRdmaLoopbackTest {

    /** AUTH_NONE call header: xid, CALL, rpcvers, prog, vers, proc, cred (2 words), verf (2 words). */
    private static final int CALL_HEADER = 40;
    /** Accepted reply header: xid, REPLY, MSG_ACCEPTED, verf (2 words), SUCCESS. */
    private static final int REPLY_HEADER = 24;

    static ByteBuf random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return Unpooled.wrappedBuffer(b);
    }

    private static void assertEcho(RpcRdmaPair p, int length) throws Exception {
        ByteBuf data = random(length, length);
        ByteBuf back = await(p.echo.echo(data.retainedDuplicate()));
        try {
            assertThat(ByteBufUtil.equals(back, data)).as("echo of %d octets", length).isTrue();
        } finally {
            back.release();
            data.release();
        }
    }

    @Test
    void inlineCallAndReplyAreOneSendEachWithTheRpcMessageAfterA28OctetHeader() throws Exception {
        // RPC-R-002, RPC-R-014, RPC-R-039, RPC-R-040, RPC-R-045, RPC-R-047
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            assertEcho(p, 100);
            WireLog.Message call = p.clientWire.sent().get(0);
            assertThat(call.header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class, m -> {
                assertThat(m.chunks().isEmpty()).isTrue();
                assertThat(m.credits()).isEqualTo(32); // requested
            });
            assertThat(call.octets()).hasSize(28 + CALL_HEADER + 4 + 100);
            assertThat(call.payloadLength()).isEqualTo(CALL_HEADER + 4 + 100); // no record mark: starts at the XID
            WireLog.Message reply = p.serverWire.sent().get(0);
            assertThat(reply.header()).isInstanceOf(RpcRdmaHeader.RdmaMsg.class);
            assertThat(reply.header().xid()).isEqualTo(call.header().xid());
            assertThat(reply.header().credits()).isEqualTo(32); // granted
            assertThat(reply.payloadLength()).isEqualTo(REPLY_HEADER + 4 + 100);
            assertThat(p.serverWire.reads()).isEmpty();
            assertThat(p.serverWire.writes()).isEmpty();
            assertThat(p.requester.callInlineThreshold()).isEqualTo(1024);
            assertThat(p.requester.replyInlineThreshold()).isEqualTo(1024);
        }
    }

    @Test
    void everySendStaysWithinItsInlineThreshold() throws Exception { // RPC-R-045, RPC-R-054
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            for (int n : new int[] {0, 900, 928, 929, 933, 3000}) {
                assertEcho(p, n);
            }
            assertThat(p.clientWire.sent()).allSatisfy(m -> assertThat(m.octets().length).isLessThanOrEqualTo(1024));
            assertThat(p.serverWire.sent()).allSatisfy(m -> assertThat(m.octets().length).isLessThanOrEqualTo(1024));
            // An ECHO reply may be as long as the call (24 + 44 + data): above 928 octets of data, 28 + that
            // passes 1024, so the Requester provides a Reply chunk (20 more header octets); from 933 octets on,
            // the call no longer fits with it: a Long Call.
            assertThat(p.clientWire.sent()).extracting(m -> m.header().procedure().name())
                    .containsExactly("RDMA_MSG", "RDMA_MSG", "RDMA_MSG", "RDMA_MSG", "RDMA_NOMSG", "RDMA_NOMSG");
            assertThat(p.clientWire.sent().get(2).header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class,
                    m -> assertThat(m.chunks().replyChunk()).isEmpty());
            assertThat(p.clientWire.sent().get(3).header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class,
                    m -> assertThat(m.chunks().replyChunk()).isPresent());
            assertThat(p.clientWire.sent().get(3).octets()).hasSize(1024);
            // RPC-R-055: the 929-octet reply fit inline although a Reply chunk was there; it comes back unused.
            assertThat(p.serverWire.sent().get(3).header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class,
                    m -> assertThat(m.chunks().replyChunk()).hasValueSatisfying(c -> assertThat(c.length()).isZero()));
        }
    }

    @Test
    void aCallOfExactlyTheThresholdIsInlineAndOneOctetMoreIsReduced() throws Exception { // RPC-R-045
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            await(p.echo.sink(random(952, 1)));
            await(p.echo.sink(random(953, 2)));
            WireLog.Message exact = p.clientWire.sent().get(0);
            assertThat(exact.octets()).hasSize(1024); // 28 + 40 + 4 + 952
            assertThat(((RpcRdmaHeader.RdmaMsg) exact.header()).chunks().isEmpty()).isTrue();
            WireLog.Message reduced = p.clientWire.sent().get(1);
            assertThat(((RpcRdmaHeader.RdmaMsg) reduced.header()).chunks().readList()).hasSize(1);
            assertThat(reduced.payloadLength()).isEqualTo(CALL_HEADER + 4);
        }
    }

    @Test
    void longCallThroughAPositionZeroReadChunkAndLongReplyThroughTheReplyChunk() throws Exception {
        // RPC-R-031, RPC-R-032, RPC-R-034, RPC-R-035, RPC-R-054, RPC-R-056
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxSegmentSize(2048))) {
            assertEcho(p, 5001);
            RpcRdmaHeader.RdmaNomsg call = (RpcRdmaHeader.RdmaNomsg) p.clientWire.sent().get(0).header();
            int stream = CALL_HEADER + 4 + 5004;
            assertThat(call.chunks().readList()).extracting(ReadSegment::position).containsOnly(0L);
            assertThat(call.chunks().readList()).extracting(s -> s.target().length()).containsExactly(2048L, 2048L,
                    (long) stream - 4096);
            assertThat(p.clientWire.sent().get(0).payloadLength()).isZero();
            WriteChunk provided = call.chunks().replyChunk().orElseThrow();
            assertThat(provided.length()).isGreaterThanOrEqualTo(REPLY_HEADER + 4 + 5004);
            assertThat(p.serverWire.reads()).extracting(t -> t.length()).containsExactly(2048L, 2048L,
                    (long) stream - 4096);

            RpcRdmaHeader.RdmaNomsg reply = (RpcRdmaHeader.RdmaNomsg) p.serverWire.sent().get(0).header();
            WriteChunk returned = reply.chunks().replyChunk().orElseThrow();
            assertThat(returned.length()).isEqualTo(REPLY_HEADER + 4 + 5004).isEqualTo(p.serverWire.written());
            assertThat(returned.length() % 4).isZero(); // RPC-R-035: a whole Payload stream, padded
            assertThat(returned).isEqualTo(provided.withWritten(returned.length()));
            assertThat(reply.chunks().readList()).isEmpty();
            assertThat(RpcRdmaPair.awaitCount(p.responder()::replyChunkReplies, 1)).isEqualTo(1);
        }
    }

    @Test
    void sinkDataIsReducedIntoAReadChunkAtItsPosition() throws Exception { // RPC-R-017, RPC-R-021, RPC-R-022
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxSegmentSize(4096))) {
            ByteBuf data = random(10_001, 3);
            int crc = EchoProgram.crc32c(data);
            SinkResult r = await(p.echo.sink(data));
            assertThat(r.length()).isEqualTo(10_001);
            assertThat(r.crc32c()).isEqualTo(crc);
            WireLog.Message call = p.clientWire.sent().get(0);
            RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) call.header();
            // The length word stays; the 10001 octets and their 3 padding octets leave the Payload stream.
            assertThat(call.payloadLength()).isEqualTo(CALL_HEADER + 4);
            assertThat(h.chunks().readList()).extracting(ReadSegment::position).containsOnly((long) CALL_HEADER + 4);
            assertThat(h.chunks().readList()).extracting(s -> s.target().length()).containsExactly(4096L, 4096L, 1809L);
            assertThat(h.chunks().readChunks()).hasSize(1); // RPC-R-020: one item, one chunk
            assertThat(p.serverWire.reads()).extracting(t -> t.length()).containsExactly(4096L, 4096L, 1809L);
        }
    }

    @Test
    void sourceResultIsPushedIntoAWriteChunkWithoutPadding() throws Exception {
        // RPC-R-027, RPC-R-028, RPC-R-029, RPC-R-030, RPC-R-048
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().maxSegmentSize(4096))) {
            ByteBuf back = await(p.echo.source(10_003));
            try {
                assertThat(back.readableBytes()).isEqualTo(10_003);
                assertThat(EchoProgram.isSource(back)).isTrue();
            } finally {
                back.release();
            }
            RpcRdmaHeader.RdmaMsg call = (RpcRdmaHeader.RdmaMsg) p.clientWire.sent().get(0).header();
            WriteChunk provided = call.chunks().writeList().get(0);
            assertThat(provided.length()).isEqualTo(10_003); // sized for the result, no roundup space
            assertThat(call.chunks().replyChunk()).isEmpty();
            WireLog.Message reply = p.serverWire.sent().get(0);
            WriteChunk returned = ((RpcRdmaHeader.RdmaMsg) reply.header()).chunks().writeList().get(0);
            assertThat(returned.segments()).extracting(RdmaSegment::length).containsExactly(4096L, 4096L, 1811L);
            assertThat(p.serverWire.written()).isEqualTo(10_003);
            assertThat(reply.payloadLength()).isEqualTo(REPLY_HEADER + 4); // only the length word stays inline
        }
    }

    @Test
    void aResultThatFitsInlineNeedsNoWriteChunk() throws Exception { // RPC-R-054 (no chunk when not needed)
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            ByteBuf back = await(p.echo.source(5));
            try {
                assertThat(EchoProgram.isSource(back)).isTrue();
            } finally {
                back.release();
            }
            RpcRdmaHeader.RdmaMsg call = (RpcRdmaHeader.RdmaMsg) p.clientWire.sent().get(0).header();
            assertThat(call.chunks().isEmpty()).isTrue();
            assertThat(p.serverWire.sent().get(0).payloadLength()).isEqualTo(REPLY_HEADER + 4 + 8);
        }
    }

    @Test
    void biggerThresholdsFromPrivateDataKeepLargerMessagesInline() throws Exception { // CMPD-R-011, RPC-R-013
        RpcRdmaSettings s = RpcRdmaPair.settings().inlineSize(4096).build();
        try (RpcRdmaPair p = new RpcRdmaPair(s, s)) {
            assertEcho(p, 3000);
            assertThat(p.requester.callInlineThreshold()).isEqualTo(4096);
            assertThat(p.clientWire.sent().get(0).header()).isInstanceOf(RpcRdmaHeader.RdmaMsg.class);
            assertThat(p.serverWire.sent().get(0).header()).isInstanceOf(RpcRdmaHeader.RdmaMsg.class);
        }
    }

    @Test
    void withoutPrivateDataBothSidesFallBackTo1024() throws Exception { // CMPD-R-001, CMPD-R-012, RPC-R-014
        RpcRdmaSettings server = RpcRdmaPair.settings().inlineSize(4096).build();
        RpcRdmaSettings client = RpcRdmaPair.settings().inlineSize(4096).announcePrivateData(false).build();
        try (RpcRdmaPair p = new RpcRdmaPair(server, client)) {
            assertEcho(p, 3000);
            assertThat(p.requester.callInlineThreshold()).isEqualTo(1024);
            assertThat(p.responder().callInlineThreshold()).isEqualTo(1024);
            assertThat(p.responder().replyInlineThreshold()).isEqualTo(1024);
            assertThat(p.clientWire.sent().get(0).header()).isInstanceOf(RpcRdmaHeader.RdmaNomsg.class);
        }
    }

    @Test
    void manyCallsOfEveryKindInParallel() throws Exception { // RPC-R-003 with mixed traffic
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().credits(4).maxSegmentSize(8192))) {
            List<java.util.concurrent.CompletableFuture<?>> all = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int n = 1000 * i;
                all.add(p.echo.echo(random(n % 7000, i)).thenAccept(ByteBuf::release));
                all.add(p.echo.sink(random(n, i)).thenAccept(r -> assertThat(r.length()).isEqualTo(n)));
                all.add(p.echo.source(n).thenAccept(b -> {
                    try {
                        assertThat(EchoProgram.isSource(b)).isTrue();
                    } finally {
                        b.release();
                    }
                }));
            }
            await(java.util.concurrent.CompletableFuture.allOf(all.toArray(new java.util.concurrent.CompletableFuture[0])));
            assertThat(p.requester.maxCallsInFlight()).isLessThanOrEqualTo(4);
        }
    }
}
