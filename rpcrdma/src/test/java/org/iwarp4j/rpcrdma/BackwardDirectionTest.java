package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.junit.jupiter.api.Test;

/** Calls from the Responder end to the Requester end on the same connection (RFC 8167). */
class BackwardDirectionTest {

    private static RpcClient backchannelClient(RpcRdmaPair p) throws InterruptedException {
        return RpcClient.builder(p.responder().backchannel()).timeout(Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS))
                .build();
    }

    @Test
    void theResponderCallsAProgramTheRequesterServes() throws Exception {
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().backchannelCredits(2))) {
            p.requester.backchannel(new RpcDispatcher().register(EchoProgram.create()));
            await(p.echo.nullCall()); // the connection is up at both ends
            EchoClient callback = new EchoClient(backchannelClient(p));
            ByteBuf back = await(callback.echo(RpcRdmaLoopbackTest.random(300, 9)));
            try {
                assertThat(ByteBufUtil.equals(back, RpcRdmaLoopbackTest.random(300, 9))).isTrue();
            } finally {
                back.release();
            }
            // On the wire: the backward Call went from the server as RDMA_MSG carrying an RPC CALL, the Reply
            // came back as RDMA_MSG carrying an RPC REPLY, both inline, without chunks.
            WireLog.Message call = p.serverWire.sent().get(1);
            assertThat(call.header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class,
                    m -> assertThat(m.chunks().isEmpty()).isTrue());
            assertThat(call.octets()[28 + 7]).isEqualTo((byte) 0); // msg_type CALL
            WireLog.Message reply = p.clientWire.sent().get(1);
            assertThat(reply.header().xid()).isEqualTo(call.header().xid());
            assertThat(reply.octets()[28 + 7]).isEqualTo((byte) 1); // msg_type REPLY
            // Forward Calls still work after it.
            await(p.echo.nullCall());
        }
    }

    @Test
    void backwardCallsAreLimitedToTheBackchannelCredits() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().backchannelCredits(2))) {
            p.requester.backchannel(new RpcDispatcher().register(gate.program()));
            await(p.echo.nullCall());
            RpcClient callback = backchannelClient(p);
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                calls.add(callback.call(GateProgram.PROGRAM, GateProgram.VERSION, GateProgram.HOLD, a -> { }));
            }
            gate.awaitHeld(2);
            for (int i = 0; i < 6; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(gate.maxServing.get()).isEqualTo(2);
            assertThat(((org.iwarp4j.rpcrdma.internal.BackwardCalls) p.responder().backchannel()).maxInFlight())
                    .isEqualTo(2);
        }
    }

    /**
     * A backward Call its caller gives up on (a timeout cancels it) gives its credit back: with
     * one credit, a callback the client never answers does not hold the backward direction for
     * good; the next Call goes out (and a late Reply to the first would be dropped as unknown).
     */
    @Test
    void aCancelledBackwardCallGivesItsCreditBack() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().backchannelCredits(1))) {
            p.requester.backchannel(new RpcDispatcher().register(gate.program()));
            await(p.echo.nullCall());
            RpcClient callback = backchannelClient(p);
            CompletableFuture<org.iwarp4j.oncrpc.RpcReply> first = callback.call(GateProgram.PROGRAM,
                    GateProgram.VERSION, GateProgram.HOLD, a -> { });
            CompletableFuture<org.iwarp4j.oncrpc.RpcReply> second = callback.call(GateProgram.PROGRAM,
                    GateProgram.VERSION, GateProgram.HOLD, a -> { });
            gate.awaitHeld(1);
            first.cancel(false);
            gate.awaitHeld(2); // the second Call reached the client
            gate.releaseOne(); // the first's late Reply: unknown now, dropped
            gate.releaseOne();
            await(second).close();
            assertThat(first).isCancelled();
        }
    }

    @Test
    void aBackwardCallThatDoesNotFitInlineFailsAtOnce() throws Exception {
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            p.requester.backchannel(new RpcDispatcher().register(EchoProgram.create()));
            await(p.echo.nullCall());
            EchoClient callback = new EchoClient(backchannelClient(p));
            assertThatThrownBy(() -> await(callback.echo(RpcRdmaLoopbackTest.random(2000, 1))))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RpcTransportException.class)
                    .hasMessageContaining("inline");
        }
    }

    @Test
    void withoutBackchannelCreditsTheBackwardDirectionIsOff() throws Exception {
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().backchannelCredits(0))) {
            await(p.echo.nullCall());
            EchoClient callback = new EchoClient(backchannelClient(p));
            assertThatThrownBy(() -> await(callback.nullCall())).isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("backward direction is off");
        }
    }

    /**
     * RFC 8167 §4.1: the backward direction has its own credits, which this end grants (and posts
     * Receives for). A Responder that sends backward Calls beyond them (here while this end still
     * serves the first ones) breaks the protocol and loses the connection, instead of having each
     * dispatched and answered with a Send of its own, which a Responder that reads nothing keeps
     * waiting, each beyond the Send slots holding an STag of the RNIC's one table. A Call counts
     * until its Reply's Send completed, so twice the credits may be outstanding as this end sees
     * them before it ends the connection, as a Responder does for forward Calls (RFC 8166 §3.3.1).
     */
    @Test
    void backwardCallsBeyondTwiceTheCreditsEndTheConnection() throws Exception {
        GateProgram gate = new GateProgram();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RawPeer raw = RawPeer.responder(serverRnic, RpcRdmaPrivateData.of(true, 4096, 4096).encode())) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic, raw.address(),
                    RpcRdmaPair.settings().backchannelCredits(1).reconnect(false).build())
                    .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            try {
                requester.backchannel(new RpcDispatcher().register(gate.program()));
                raw.accepted().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                RdmaEndpoint endpoint = requester.endpoint();
                // An MPA Responder sends nothing before the Initiator's first FPDU (RFC 5044 §7.1.2): one Call first.
                CompletableFuture<XdrMessage> first = requester.call(
                        new RpcCallInfo(0x9190, EchoProgram.PROGRAM, EchoProgram.VERSION, 0),
                        XdrMessage.of(Unpooled.wrappedBuffer(Messages.echoCall(0x9190, 0, new byte[0]))));
                raw.receive();
                raw.send(Messages.concat(Messages.fixed(0x9190, 1, 4, 0), Messages.words(0, 0, 0),
                        Messages.reply(0x9190, new byte[0])));
                first.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS).release();

                raw.send(GateProgram.holdCall(0x1001, 1));
                raw.send(GateProgram.holdCall(0x1002, 1));
                gate.awaitHeld(2);
                raw.send(GateProgram.holdCall(0x1003, 1));
                endpoint.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(gate.served).as("the third was not served").hasValue(2);
                gate.releaseOne(); // their Replies meet a closed connection
                gate.releaseOne();
            } finally {
                requester.close();
            }
        }
    }
}
