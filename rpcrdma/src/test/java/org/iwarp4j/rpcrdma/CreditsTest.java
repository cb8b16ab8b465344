package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.junit.jupiter.api.Test;

/** Credits (RFC 8166 §3.3.1, §3.3.3): one Call before the first Reply, then never more than granted. */
class CreditsTest {

    private static RpcRdmaPair pair(int serverCredits, int clientCredits, GateProgram gate) throws Exception {
        RpcRdmaPair p = new RpcRdmaPair(RpcRdmaPair.settings().credits(serverCredits).build(),
                RpcRdmaPair.settings().credits(clientCredits).build());
        p.dispatcher.register(gate.program());
        return p;
    }

    private static List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> hold(RpcRdmaPair p, int n) {
        List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            calls.add(p.client.call(GateProgram.PROGRAM, GateProgram.VERSION, GateProgram.HOLD, a -> { }));
        }
        return calls;
    }

    @Test
    void onlyOneCallUntilTheFirstReplyThenTheGrant() throws Exception { // RPC-R-012, RPC-R-003
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = pair(3, 32, gate)) {
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = hold(p, 5);
            gate.awaitHeld(1);
            // The Responder holds one Call; the Requester must not have sent another (it assumes 1 credit).
            assertThat(p.requester.callsWaitingForCredit()).isEqualTo(4);
            assertThat(p.clientWire.sent()).hasSize(1);
            assertThat(p.requester.grantedCredits()).isEqualTo(1);
            gate.releaseOne(); // the first Reply grants 3
            gate.awaitHeld(3);
            assertThat(p.requester.grantedCredits()).isEqualTo(3);
            assertThat(p.requester.callsWaitingForCredit()).isEqualTo(1);
            // What a timed-out call's message would carry: the stall is the Responder's, not a credit's.
            assertThat(p.requester.state()).startsWith("connection 1 open (QueuePair{")
                    .endsWith("3 calls awaiting a reply, 0 abandoned, 1 waiting for a credit, 3 credits granted, "
                            + "0 replies with an unknown xid, 0 discarded");
            for (int i = 0; i < 4; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(gate.maxServing.get()).isEqualTo(3);
            assertThat(p.requester.maxCallsInFlight()).isEqualTo(3);
        }
    }

    @Test
    void creditExhaustionQueuesCallsAndNeverExceedsTheGrant() throws Exception { // RPC-R-003, RPC-R-009
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = pair(2, 32, gate)) {
            await(p.echo.nullCall()); // the first Reply: grant 2
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = hold(p, 10);
            gate.awaitHeld(2);
            assertThat(p.requester.callsWaitingForCredit()).isEqualTo(8);
            for (int i = 0; i < 10; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(gate.maxServing.get()).isEqualTo(2);
            assertThat(p.requester.maxCallsInFlight()).isEqualTo(2);
            // RPC-R-005: every Reply grants 2, never 0.
            assertThat(p.serverWire.sent()).extracting(m -> m.header().credits()).containsOnly(2);
        }
    }

    /**
     * RPC-R-008: no Reply grants credits the Responder has no Receives posted for. Five Calls are
     * in the Responder at once (each took a Receive), every Reply grants five, and the Responder's
     * endpoint has at least that many Receives for Calls, besides those for backward Replies.
     */
    @Test
    void everyGrantIsBackedByReceivesPostedForCalls() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = pair(5, 32, gate)) {
            await(p.echo.nullCall());
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = hold(p, 5);
            gate.awaitHeld(5);
            for (int i = 0; i < 5; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(p.serverWire.sent()).hasSize(6).extracting(m -> m.header().credits()).containsOnly(5);
            int forBackwardReplies = RpcRdmaSettings.defaults().backchannelCredits();
            assertThat(p.responder().endpoint().postedReceives() - forBackwardReplies).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void theRequesterAsksForItsOwnCreditsAndUsesTheSmallerOfTheTwo() throws Exception { // RPC-R-040, RPC-R-004
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = pair(8, 3, gate)) {
            await(p.echo.nullCall());
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = hold(p, 6);
            gate.awaitHeld(3);
            assertThat(p.requester.callsWaitingForCredit()).isEqualTo(3);
            assertThat(p.clientWire.sent()).extracting(m -> m.header().credits()).containsOnly(3);
            assertThat(p.serverWire.sent().get(0).header()).isInstanceOf(RpcRdmaHeader.RdmaMsg.class);
            for (int i = 0; i < 6; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(gate.maxServing.get()).isEqualTo(3);
        }
    }

    @Test
    void theServersMetersShowTheGrantAndTheCreditsInUse() throws Exception {
        GateProgram gate = new GateProgram();
        try (RpcRdmaPair p = pair(8, 32, gate)) {
            await(p.echo.nullCall()); // the first Reply: grant 8
            List<CompletableFuture<org.iwarp4j.oncrpc.RpcReply>> calls = hold(p, 3);
            gate.awaitHeld(3);
            io.micrometer.core.instrument.DistributionSummary granted =
                    p.serverMeters.get("iwarp.rpcrdma.credits.granted").summary();
            assertThat(granted.count()).isEqualTo(1); // one connection
            assertThat(granted.max()).isEqualTo(8);
            io.micrometer.core.instrument.DistributionSummary inUse =
                    p.serverMeters.get("iwarp.rpcrdma.credits.in.use").summary();
            assertThat(inUse.count()).isEqualTo(4); // one sample per Call received
            // Three Calls held at once; the NULL Call's credit may not be counted back yet when the third arrives.
            assertThat(inUse.max()).isBetween(3.0, 4.0);
            assertThat(p.serverMeters.get("iwarp.oncrpc.calls.active").tag("transport", "rdma").gauge().value())
                    .isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                gate.releaseOne();
            }
            for (CompletableFuture<org.iwarp4j.oncrpc.RpcReply> c : calls) {
                await(c).close();
            }
            assertThat(p.serverMeters.get("iwarp.oncrpc.calls.in.progress").tag("transport", "rdma").summary()
                    .max()).isEqualTo(3);
        }
    }
}
