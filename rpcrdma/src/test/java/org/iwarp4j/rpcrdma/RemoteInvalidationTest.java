package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.reply;
import static org.iwarp4j.rpcrdma.Messages.words;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/**
 * Send with Invalidate (RFC 8797 §4.1) and the Requester's fencing of registered memory (RFC 8166
 * §4.4.1, §8.1.3).
 */
class RemoteInvalidationTest {

    private static void source(RpcRdmaPair p, int n) throws Exception {
        ByteBuf b = await(p.echo.source(n));
        b.release();
    }

    @Test
    void withBothRBitsRepliesToCallsWithChunksUseSendWithInvalidate() throws Exception { // CMPD-R-007, CMPD-R-008
        try (RpcRdmaPair p = RpcRdmaPair.echo(RpcRdmaPair.settings())) {
            assertThat(p.requester.remoteInvalidation()).isTrue();
            source(p, 5000);
            await(p.echo.nullCall());
            RpcRdmaHeader.RdmaMsg call = (RpcRdmaHeader.RdmaMsg) p.clientWire.sent().get(0).header();
            int chunkStag = call.chunks().writeList().get(0).segments().get(0).handle();
            assertThat(p.serverWire.sent().get(0).stag()).hasValue(chunkStag); // the STag of this RPC's Write chunk
            assertThat(p.clientWire.received().get(0).stag()).hasValue(chunkStag); // and it was invalidated here
            assertThat(p.serverWire.sent().get(1).stag()).isEmpty(); // a NULL Call had no chunk to invalidate
        }
    }

    @Test
    void whenTheRequesterClearsRRepliesUsePlainSend() throws Exception { // CMPD-R-009
        RpcRdmaSettings server = RpcRdmaPair.settings().build();
        RpcRdmaSettings client = RpcRdmaPair.settings().remoteInvalidation(false).build();
        try (RpcRdmaPair p = new RpcRdmaPair(server, client)) {
            assertThat(p.requester.remoteInvalidation()).isFalse();
            assertThat(p.responder().remoteInvalidation()).isFalse();
            source(p, 5000);
            assertThat(p.serverWire.sent()).allSatisfy(m -> assertThat(m.stag()).isEmpty());
            assertThat(p.clientWire.received()).allSatisfy(m -> assertThat(m.stag()).isEmpty());
        }
    }

    @Test
    void whenTheResponderClearsRRepliesUsePlainSend() throws Exception { // CMPD-R-009
        RpcRdmaSettings server = RpcRdmaPair.settings().remoteInvalidation(false).build();
        RpcRdmaSettings client = RpcRdmaPair.settings().build();
        try (RpcRdmaPair p = new RpcRdmaPair(server, client)) {
            source(p, 5000);
            assertThat(p.serverWire.sent()).allSatisfy(m -> assertThat(m.stag()).isEmpty());
        }
    }

    @Test
    void aWriteChunkIsFencedBeforeTheCallCompletes() throws Exception { // RPC-R-057, RPC-R-076, RPC-R-025
        try (Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
             Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build()) {
            RawPeer raw = RawPeer.responder(serverRnic, RpcRdmaPrivateData.of(false, 4096, 4096).encode());
            // No reconnect: the late Write below ends the connection on purpose.
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic, raw.address(),
                    RpcRdmaSettings.builder().binding(new EchoBinding()).reconnect(false).build())
                    .get(30, TimeUnit.SECONDS);
            try (RpcClient client = RpcClient.builder(requester).timeout(Duration.ofSeconds(30)).build()) {
                raw.accepted().get(30, TimeUnit.SECONDS);
                CompletableFuture<ByteBuf> call = new EchoClient(client).source(2000);
                HeaderDecodeResult r = new RpcRdmaHeaderDecoder().decode(Unpooled.wrappedBuffer(raw.receive()));
                RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) ((HeaderDecodeResult.Decoded) r).header();
                RdmaSegment target = h.chunks().writeList().get(0).segments().get(0);
                ByteBuf data = Unpooled.directBuffer(2000).writeZero(2000);
                try (MemoryRegion source = raw.pd.register(data, EnumSet.noneOf(Access.class))) {
                    raw.qp.postSend(SendWorkRequest.rdmaWrite(1, target.handle(), target.offset(), source.sge()));
                    assertThat(raw.sendCq.poll(30, TimeUnit.SECONDS).isSuccess()).isTrue();
                    raw.send(concat(fixed(h.xid(), 1, 4, 0), words(0, 1, 1, target.handle(), 2000,
                            (int) (target.offset() >>> 32), (int) target.offset(), 0, 0), reply(h.xid(), words(2000))));
                    call.get(30, TimeUnit.SECONDS).release();
                    // The RPC is complete, so its Write chunk must be unreachable: a late RDMA Write is refused.
                    raw.qp.postSend(SendWorkRequest.rdmaWrite(2, target.handle(), target.offset(), source.sge()));
                    WorkCompletion late = raw.sendCq.poll(30, TimeUnit.SECONDS);
                    assertThat(late).isNotNull();
                    raw.qp.closeFuture().get(30, TimeUnit.SECONDS);
                    assertThat(raw.qp.terminateReason()).isNotNull();
                    assertThat(raw.qp.terminateReason().toString()).contains("Invalid STag");
                } finally {
                    data.release();
                }
            } finally {
                raw.close();
            }
        }
    }
}
