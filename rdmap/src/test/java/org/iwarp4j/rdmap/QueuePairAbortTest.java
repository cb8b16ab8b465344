package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * {@link QueuePair#abort()}: with an RDMA Read outstanding that the peer never answers (it stopped
 * reading its connection), the orderly {@link QueuePair#close()} would wait for the Read forever;
 * abort closes at once and flushes the Read.
 */
class QueuePairAbortTest {

    @Test
    void abortFlushesAnUnansweredReadAndClosesTheConnection() throws Exception {
        CompletableFuture<Channel> serverChannel = new CompletableFuture<>();
        RdmaPair pair = new RdmaPair(Rnic.builder().channelInitializer(serverChannel::complete), Rnic.builder(),
                MpaSettings.builder().build(), b -> b, b -> b, qp -> { }, qp -> { });
        ByteBuf source = Unpooled.directBuffer(64).writeZero(64);
        ByteBuf sink = Unpooled.directBuffer(64).writeZero(64);
        try (MemoryRegion remote = pair.server.register(source, EnumSet.of(Access.REMOTE_READ));
             MemoryRegion local = pair.client.register(sink, EnumSet.of(Access.LOCAL_WRITE))) {
            Channel channel = serverChannel.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false))
                    .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            pair.client.postSend(SendWorkRequest.rdmaRead(7, remote.stag(), remote.baseTaggedOffset(), local.sge()));

            pair.client.abort().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            WorkCompletion read = RdmaPair.next(pair.clientCq);
            assertThat(read.workRequestId()).isEqualTo(7);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(read.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
            assertThat(pair.client.state()).isEqualTo(QueuePairState.ERROR);
            channel.config().setAutoRead(true); // the server now sees the connection end
            pair.server.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        } finally {
            source.release();
            sink.release();
            pair.closeAbruptly();
        }
    }
}
