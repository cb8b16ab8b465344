package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.words;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/** Connection loss: retransmission after reconnect (RFC 8166 §4.5.5) and ERR_CHUNK for a failed XID (§4.5.3). */
class ReconnectTest {

    @Test
    void aCallWithoutAReplyIsRetransmittedWithTheSameXidOnANewConnection() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            p.dispatcher.register(gate.program());
            CompletableFuture<RpcReply> call = p.client.call(GateProgram.PROGRAM, GateProgram.VERSION,
                    GateProgram.HOLD, a -> { });
            gate.awaitHeld(1);
            p.responder().close(); // the server drops the connection while the Call is being served
            RpcRdmaResponder second = p.nextConnection();
            gate.awaitHeld(2); // the retransmission reached the new connection
            gate.releaseOne(); // the first answer has no connection to go to
            gate.releaseOne();
            await(call).close();
            assertThat(p.requester.connections()).isEqualTo(2);
            assertThat(p.requester.retransmissions()).isEqualTo(1);
            List<Integer> xids = p.serverWire.received().stream().map(m -> m.header().xid()).collect(Collectors.toList());
            assertThat(xids).hasSize(2);
            assertThat(xids.get(1)).isEqualTo(xids.get(0));
            assertThat(second.callsReceived()).isEqualTo(1);
            await(p.echo.nullCall()); // and the new connection carries on
        }
    }

    @Test
    void withoutReconnectCallsFailWhenTheConnectionIsLost() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().reconnect(false))) {
            p.dispatcher.register(gate.program());
            CompletableFuture<RpcReply> call = p.client.call(GateProgram.PROGRAM, GateProgram.VERSION,
                    GateProgram.HOLD, a -> { });
            gate.awaitHeld(1);
            p.responder().close();
            try {
                call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("expected the call to fail");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(RpcTransportException.class).hasMessageContaining("lost");
            }
            gate.releaseOne();
            // Later Calls fail at once instead of waiting for a connection that will not come.
            try {
                p.echo.nullCall().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                throw new AssertionError("expected the call to fail");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(RpcTransportException.class);
            }
        }
    }

    @Test
    void whenTheServerIsGoneReconnectingFailsTheCallsAndALaterCallTriesAgain() throws Exception {
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            await(p.echo.nullCall());
            p.server.close(); // stops listening and drops the connection
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    p.echo.nullCall().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                    throw new AssertionError("expected the call to fail");
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(RpcTransportException.class);
                }
            }
            assertThat(p.requester.connections()).isEqualTo(1);
        }
    }

    @Test
    void anXidWhoseRdmaWriteKilledTheConnectionGetsErrChunkAfterTheReconnect() throws Exception { // RPC-R-067
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                     new RpcDispatcher().register(EchoProgram.create()),
                     RpcRdmaSettings.builder().credits(4).binding(new EchoBinding()).build())) {
            // SOURCE of 3000 octets into a Write chunk whose STag the Requester never registered.
            byte[] call = concat(fixed(0x5151, 1, 1, 0), words(0, 1, 1, 0x0BAD0BAD, 3000, 0x7f00, 0, 0, 0),
                    echoCall(0x5151, EchoProgram.PROC_SOURCE, words(3000)));
            RawPeer first = RawPeer.requester(clientRnic, server.localAddress());
            try {
                first.send(call);
                first.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(first.qp.terminateReason()).isNotNull(); // our RNIC refused the RDMA Write
            } finally {
                first.close();
            }
            try (RawPeer again = RawPeer.requester(clientRnic, server.localAddress())) {
                again.send(call); // retransmitted on the new connection
                assertThat(again.receive()).isEqualTo(words(0x5151, 1, 4, 4, 2));
            }
        }
    }
}
