package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.junit.jupiter.api.Test;

/**
 * Sends go out of a ring of pre-registered slots (one per posted Receive), not out of a region
 * registered per Send; a Send that finds no free slot is registered on its own. The octets on the
 * wire are the same either way.
 */
class SendSlotsTest {

    /** AUTH_NONE call header and the fixed RPC-over-RDMA header with three empty lists. */
    private static final int CALL_HEADER = 40;
    private static final int RDMA_HEADER = 28;
    /** Accepted reply header, then SINK's length and CRC32c. */
    private static final int SINK_REPLY = 24 + 8;

    @Test
    void oneKibSinksWithFourKibThresholdsAreOneInlineSendEachWayFromTheSlots() throws Exception {
        // The shape of `iwarp bench rpc -s 1024 -P SINK`: 4096/4096 thresholds (as Linux), a 1 KiB
        // DDP-eligible argument that fits inline stays inline (RFC 8166 §3.5: reduction is for what
        // does not fit; RPC-R-045), so no Read chunk and no RDMA Read, and each Send uses a slot.
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings().inlineSize(4096))) {
            ByteBuf data = RpcRdmaLoopbackTest.random(1024, 7);
            int crc = EchoProgram.crc32c(data);
            List<CompletableFuture<SinkResult>> calls = new ArrayList<>();
            for (int i = 0; i < 100; i++) { // more than the 32 credits: the Requester keeps 32 in flight
                calls.add(p.echo.sink(data.retainedDuplicate()));
            }
            for (CompletableFuture<SinkResult> c : calls) {
                SinkResult r = await(c);
                assertThat(r.length()).isEqualTo(1024);
                assertThat(r.crc32c()).isEqualTo(crc);
            }
            data.release();

            assertThat(p.clientWire.sent()).hasSize(100).allSatisfy(m -> {
                assertThat(m.octets()).hasSize(RDMA_HEADER + CALL_HEADER + 4 + 1024);
                assertThat(m.header()).isInstanceOfSatisfying(RpcRdmaHeader.RdmaMsg.class,
                        h -> assertThat(h.chunks().isEmpty()).isTrue());
            });
            assertThat(p.serverWire.sent()).hasSize(100).allSatisfy(m -> {
                assertThat(m.octets()).hasSize(RDMA_HEADER + SINK_REPLY);
                assertThat(m.header()).isInstanceOf(RpcRdmaHeader.RdmaMsg.class);
                assertThat(m.stag()).isEmpty(); // nothing of the Requester's to invalidate
            });
            assertThat(p.serverWire.reads()).isEmpty();
            assertThat(p.serverWire.writes()).isEmpty();

            // At most 32 Calls (and so 32 Replies) unanswered, 33 slots each end: never a registration.
            RdmaEndpoint client = p.requester.endpoint();
            RdmaEndpoint server = p.responder().endpoint();
            assertThat(client.sendsRegistered()).isZero();
            assertThat(server.sendsRegistered()).isZero();
            // Every Call's Send completed before its Reply was read (one event loop): all slots back.
            assertThat(client.freeSendSlots()).isEqualTo(client.postedReceives());
        }
    }

    /**
     * Sends beyond the slots are registered on their own, and arrive intact and in order; but no
     * more of them may wait to go out than there are slots, at a Requester's endpoint as at a
     * Responder's: one more fails (its caller closes the connection). Before, a Requester's were
     * not bounded, and a peer that reads nothing could have it hold an STag of the RNIC's one
     * table (65,536) for each Send it was made to post, up to the send queue's 8192.
     */
    @Test
    void sendsBeyondTheSlotsAreRegisteredOnTheirOwnAsManyAsTheSlotsAndArriveIntactInOrder() throws Exception {
        try (Rnic peerRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic ourRnic = Rnic.builder().eventLoopThreads(1).build();
             RawPeer peer = RawPeer.responder(peerRnic, RpcRdmaPrivateData.of(false, 4096, 4096).encode())) {
            RpcRdmaSettings settings = RpcRdmaPair.settings().inlineSize(1024).build();
            RdmaEndpoint endpoint = RdmaEndpoint.forRequester(ourRnic, settings, 2); // 2 slots of 1024 octets
            try {
                await(endpoint.connect(peer.address()));
                await(peer.accepted());
                // Posted from the message handler, on the connection's event loop: no Send can
                // complete (and free its slot or registration) before the handler returns, so
                // exactly the first two Sends that fit a slot get one, and the two registered
                // after them are all that may wait.
                int[] sizes = {100, 200, 2000, 300, 400, 500}; // 2000: larger than a slot
                CompletableFuture<List<CompletableFuture<Void>>> posted = new CompletableFuture<>();
                endpoint.onMessage(r -> {
                    r.message().release();
                    List<CompletableFuture<Void>> sends = new ArrayList<>();
                    for (int i = 0; i < sizes.length; i++) {
                        sends.add(endpoint.send(pattern(sizes[i], i), OptionalInt.empty()));
                    }
                    posted.complete(sends);
                });
                // The Initiator speaks first (MPA v2: the Responder waits for its first FPDU). That
                // Send's slot is back before the peer's answer is handled: both on our event loop.
                await(endpoint.send(pattern(8, 99), OptionalInt.empty()));
                assertThat(peer.receive()).isEqualTo(bytes(pattern(8, 99)));
                peer.send(new byte[] {1, 2, 3, 4});

                for (int i = 0; i < 4; i++) {
                    assertThat(peer.receive()).as("Send %d", i).isEqualTo(bytes(pattern(sizes[i], i)));
                }
                List<CompletableFuture<Void>> sends = posted.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                for (int i = 0; i < 4; i++) {
                    await(sends.get(i));
                }
                for (int i = 4; i < sizes.length; i++) {
                    assertThatThrownBy(sends.get(i)::join).as("Send %d", i).hasCauseInstanceOf(RpcTransportException.class)
                            .hasMessageContaining("Sends registered on their own are waiting");
                }
                assertThat(peer.receive(1)).isNull();
                assertThat(endpoint.sendsRegistered()).isEqualTo(2); // 2000 (too large), 300
                assertThat(endpoint.registeredSendsOutstanding()).isZero();
                assertThat(endpoint.freeSendSlots()).isEqualTo(2);
            } finally {
                endpoint.close().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    private static ByteBuf pattern(int n, int seed) {
        ByteBuf b = Unpooled.directBuffer(n);
        for (int i = 0; i < n; i++) {
            b.writeByte(i * 31 + seed);
        }
        return b;
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            return io.netty.buffer.ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }
}
