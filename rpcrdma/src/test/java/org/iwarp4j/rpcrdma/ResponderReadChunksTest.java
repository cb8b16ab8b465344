package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.words;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.ReadSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/**
 * Responder-provided Read chunks (draft-cel-nfsv4-rpcrdma-reliable-reply-02), opt-in at both ends:
 * a Reply too large for every resource the Requester provided goes out as a Position-Zero Read
 * chunk, which the Requester pulls and acknowledges with RDMA_DONE.
 */
class ResponderReadChunksTest {

    /** The echo binding, but it claims ECHO replies are small, so that no Reply chunk is provided. */
    private static UpperLayerBinding underestimating() {
        EchoBinding echo = new EchoBinding();
        return new UpperLayerBinding() {
            @Override
            public boolean covers(int program, int version) {
                return echo.covers(program, version);
            }

            @Override
            public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
                return call.procedure() == EchoProgram.PROC_ECHO ? ReplyEstimate.inlineOnly(100)
                        : echo.replyEstimate(call, callMessage);
            }

            @Override
            public boolean hasDdpEligibleArgument(RpcCallInfo call) {
                return echo.hasDdpEligibleArgument(call);
            }

            @Override
            public boolean hasDdpEligibleResult(RpcCallInfo call) {
                return echo.hasDdpEligibleResult(call);
            }
        };
    }

    private static RpcRdmaSettings.Builder draft(boolean on) {
        return RpcRdmaSettings.builder().binding(underestimating()).responderReadChunks(on);
    }

    @Test
    void aReplyLargerThanAnyProvidedResourceIsPulledFromAResponderReadChunk() throws Exception {
        // RRC-R-001, RRC-R-003, RRC-R-005, RRC-R-006, RRC-R-012, RRC-R-013
        try (RpcRdmaPair p = new RpcRdmaPair(draft(true).build(), draft(true).build())) {
            ByteBuf data = RpcRdmaLoopbackTest.random(3000, 5);
            ByteBuf back = await(p.echo.echo(data.retainedDuplicate()));
            try {
                assertThat(ByteBufUtil.equals(back, data)).isTrue();
            } finally {
                back.release();
                data.release();
            }
            WireLog.Message reply = p.serverWire.sent().get(0);
            RpcRdmaHeader.RdmaNomsg h = (RpcRdmaHeader.RdmaNomsg) reply.header();
            assertThat(h.chunks().readList()).extracting(ReadSegment::position).containsOnly(0L);
            long length = h.chunks().readList().stream().mapToLong(s -> s.target().length()).sum();
            assertThat(length).isEqualTo(24 + 4 + 3000);
            assertThat(p.clientWire.reads()).extracting(t -> t.length()).containsExactly(length);
            // Pull completion: RDMA_DONE with the Reply's XID, 16 octets, invalidating the chunk's STag.
            WireLog.Message done = p.clientWire.sent().get(1);
            assertThat(done.header()).isEqualTo(new RpcRdmaHeader.RdmaDone(h.xid(), 1, 32));
            assertThat(done.octets()).hasSize(16);
            int stag = h.chunks().readList().get(0).target().handle();
            assertThat(done.stag()).hasValue(stag);
            // The Responder let go of the chunk when the notification came.
            await(p.echo.nullCall());
            assertThat(p.responder().pullsWaiting()).isZero();
            assertThat(p.responder().responderReadChunkReplies()).isEqualTo(1);
            assertThat(p.serverWire.received().get(1).stag()).hasValue(stag);
        }
    }

    @Test
    void withTheDraftOffTheSameReplyIsErrChunk() throws Exception { // RRC-R-004, RRC-R-015
        try (RpcRdmaPair p = new RpcRdmaPair(draft(false).build(), draft(true).build())) {
            try {
                await(p.echo.echo(RpcRdmaLoopbackTest.random(3000, 6)));
                throw new AssertionError("expected ERR_CHUNK");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOfSatisfying(RpcRdmaErrorException.class,
                        x -> assertThat(x.code()).isEqualTo(RpcRdmaErrorException.Code.ERR_CHUNK));
            }
        }
    }

    @Test
    void withoutPullCompletionTheChunkIsInvalidatedAfterTheTimeout() throws Exception { // RRC-R-011, RRC-R-016
        RpcRdmaSettings server = draft(true).responderReadChunkTimeout(Duration.ofMillis(200)).build();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer rpc = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                     new RpcDispatcher().register(EchoProgram.create()), server)) {
            CompletableFuture<RpcRdmaResponder> connected = new CompletableFuture<>();
            rpc.onConnection(connected::complete);
            try (RawPeer raw = RawPeer.requester(clientRnic, rpc.localAddress())) {
                CompletableFuture<Integer> expired = new CompletableFuture<>();
                connected.get(30, TimeUnit.SECONDS).onPullTimeout(expired::complete);
                // SOURCE of 3000 octets without a Write chunk or a Reply chunk: too long for the inline threshold.
                raw.send(concat(fixed(0x6161, 1, 1, 0), words(0, 0, 0),
                        echoCall(0x6161, EchoProgram.PROC_SOURCE, words(3000))));
                HeaderDecodeResult r = new RpcRdmaHeaderDecoder().decode(Unpooled.wrappedBuffer(raw.receive()));
                RpcRdmaHeader.RdmaNomsg h = (RpcRdmaHeader.RdmaNomsg) ((HeaderDecodeResult.Decoded) r).header();
                ReadSegment chunk = h.chunks().readList().get(0);
                assertThat(expired.get(30, TimeUnit.SECONDS)).isEqualTo(0x6161); // no RDMA_DONE came
                // A late RDMA Read of the chunk is refused: the STag is gone.
                ByteBuf sink = Unpooled.directBuffer((int) chunk.target().length()).writeZero((int) chunk.target().length());
                try (MemoryRegion region = raw.pd.register(sink, EnumSet.of(Access.LOCAL_WRITE))) {
                    raw.qp.postSend(SendWorkRequest.rdmaRead(1, chunk.target().handle(), chunk.target().offset(),
                            region.sge()));
                    WorkCompletion late = raw.sendCq.poll(30, TimeUnit.SECONDS);
                    assertThat(late.isSuccess()).isFalse();
                } finally {
                    sink.release();
                }
            }
        }
    }

    /**
     * A Reply exposed as a responder-provided Read chunk holds its Call's credit until the
     * Requester pulls it (RDMA_DONE) or it expires: a Requester that takes the Replies and never
     * sends RDMA_DONE is stopped by the credit check (more than twice the grant unanswered, RFC
     * 8166 §3.3.1) instead of piling up registered Replies until each times out.
     */
    @Test
    void repliesNeverPulledHoldTheirCreditsUntilTheConnectionIsClosedForThem() throws Exception {
        int grant = 2;
        RpcRdmaSettings server = draft(true).credits(grant).responderReadChunkTimeout(Duration.ofMinutes(5)).build();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer rpc = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                     new RpcDispatcher().register(EchoProgram.create()), server)) {
            CompletableFuture<RpcRdmaResponder> connected = new CompletableFuture<>();
            rpc.onConnection(connected::complete);
            try (RawPeer raw = RawPeer.requester(clientRnic, rpc.localAddress())) {
                RpcRdmaResponder responder = connected.get(30, TimeUnit.SECONDS);
                for (int i = 1; i <= 2 * grant; i++) {
                    // SOURCE of 3000 octets, no Reply chunk: each Reply goes out as a Read chunk
                    raw.send(concat(fixed(0x7000 + i, 1, grant, 0), words(0, 0, 0),
                            echoCall(0x7000 + i, EchoProgram.PROC_SOURCE, words(3000))));
                    HeaderDecodeResult r = new RpcRdmaHeaderDecoder().decode(Unpooled.wrappedBuffer(raw.receive()));
                    assertThat(((HeaderDecodeResult.Decoded) r).header()).isInstanceOf(RpcRdmaHeader.RdmaNomsg.class);
                }
                assertThat(responder.pullsWaiting()).isEqualTo(2 * grant);
                assertThat(responder.overCredits()).isFalse();
                raw.send(concat(fixed(0x7100, 1, grant, 0), words(0, 0, 0),
                        echoCall(0x7100, EchoProgram.PROC_SOURCE, words(3000))));
                raw.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(responder.overCredits()).isTrue();
            }
        }
    }

    @Test
    void aPullCompletionForAnXidWithNothingWaitingIsDropped() throws Exception { // RRC-R-009
        try (RpcRdmaPair p = new RpcRdmaPair(draft(true).build(), draft(true).build())) {
            await(p.echo.nullCall());
            RpcRdmaResponder responder = p.responder();
            long before = responder.discarded();
            // Our Requester never sends a stray RDMA_DONE; a raw one on a second connection shows the rule.
            try (RawPeer raw = RawPeer.requester(p.clientRnic, p.server.localAddress())) {
                RpcRdmaResponder second = p.nextConnection();
                raw.send(fixed(0x7171, 1, 1, 3));
                raw.send(concat(fixed(0x7172, 1, 1, 0), words(0, 0, 0), echoCall(0x7172, 0, new byte[0])));
                assertThat(raw.receive()).startsWith(words(0x7172)); // the NULL reply is the only answer
                assertThat(second.discarded()).isEqualTo(1);
            }
            assertThat(responder.discarded()).isEqualTo(before);
        }
    }

    /**
     * RRC-R-008: a Reply in a Responder Read chunk for a Call this end gave up on still gets its
     * pull completion, so the Responder can release the chunk; one for an XID this end never sent
     * (or already has the Reply of) gets none: nothing of the Requester's waits on it, and
     * answering every such message would let a Responder make this end post a Send per message
     * it sends (the Responder's own timeout, RRC-R-011, releases such a chunk).
     */
    @Test
    void aResponderReadChunkForACancelledCallGetsPullCompletionAndOneForAnXidNeverSentNone() throws Exception {
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RawPeer raw = RawPeer.responder(serverRnic, new byte[0])) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic, raw.address(),
                    draft(true).build()).get(30, TimeUnit.SECONDS);
            try {
                raw.accepted().get(30, TimeUnit.SECONDS);
                // An MPA Responder sends nothing before the Initiator's first FPDU (RFC 5044 §7.1.2): one Call first.
                XdrMessage nullCall = XdrMessage.of(Unpooled.wrappedBuffer(echoCall(0x8180, 0, new byte[0])));
                CompletableFuture<XdrMessage> first = requester.call(
                        new RpcCallInfo(0x8180, EchoProgram.PROGRAM, EchoProgram.VERSION, 0), nullCall);
                raw.receive();
                raw.send(concat(fixed(0x8180, 1, 4, 0), words(0, 0, 0), Messages.reply(0x8180, new byte[0])));
                first.get(30, TimeUnit.SECONDS).release();
                CompletableFuture<XdrMessage> cancelled = requester.call(
                        new RpcCallInfo(0x8181, EchoProgram.PROGRAM, EchoProgram.VERSION, 0),
                        XdrMessage.of(Unpooled.wrappedBuffer(echoCall(0x8181, 0, new byte[0]))));
                raw.receive();
                cancelled.cancel(false);
                raw.send(concat(fixed(0x8181, 1, 4, 1), words(1, 0, 0x1234, 64, 0, 0x1000, 0, 0, 0)));
                assertThat(raw.receive()).isEqualTo(fixed(0x8181, 1, 32, 3));

                raw.send(concat(fixed(0x8182, 1, 4, 1), words(1, 0, 0x1235, 64, 0, 0x1000, 0, 0, 0)));
                assertThat(RpcRdmaPair.awaitCount(requester::unknownXidReplies, 1)).isEqualTo(1);
                assertThat(raw.receive(1)).as("no RDMA_DONE for an XID never sent").isNull();
            } finally {
                requester.close();
            }
        }
    }
}
