package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.Test;

/**
 * A Requester that keeps sending Calls past its credits (RPC-R-003) loses its connection once it
 * has more than twice the grant unanswered (RFC 8166 §3.3.1: exceeding the grant may end the
 * connection). Our Responder posts its Receives again as it takes them, so without this nothing
 * would stop such a Requester: every Call would be pulled, assembled and queued for service. The
 * Calls within the line are served; the one past it is not.
 */
class CreditOverrunTest {

    private static final int GRANT = 2;

    /** A Call to the gate's HOLD (answered only when the test says), with no chunks (RDMA_MSG). */
    private static byte[] hold(int xid) {
        return GateProgram.holdCall(xid, GRANT);
    }

    @Test
    void aRequesterWithMoreThanTwiceItsCreditsUnansweredLosesItsConnection() throws Exception {
        GateProgram gate = new GateProgram();
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                    new RpcDispatcher().register(gate.program()), RpcRdmaSettings.builder().credits(GRANT).build());
            try (RawPeer peer = RawPeer.requester(clientRnic, server.localAddress())) {
                for (int xid = 1; xid <= 2 * GRANT; xid++) {
                    peer.send(hold(xid));
                }
                gate.awaitHeld(2 * GRANT);
                RpcRdmaResponder responder = server.responders().get(0);
                assertThat(responder.overCredits()).as("twice the grant is tolerated").isFalse();

                peer.send(hold(2 * GRANT + 1));
                peer.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(responder.overCredits()).isTrue();
                assertThat(gate.served).as("the Call past the line was not served").hasValue(2 * GRANT);
            } finally {
                for (int i = 0; i < 2 * GRANT; i++) {
                    gate.releaseOne();
                }
                server.close();
            }
        }
    }
}
