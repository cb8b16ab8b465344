package org.iwarp4j.rpcrdma.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.PooledByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a Reply that fails is reported, so that the Responder counts its Call answered exactly once:
 * a Reply whose Read chunk was exposed (draft-cel-nfsv4-rpcrdma-reliable-reply) is answered for by
 * the chunk's release ({@link PullCompletions}), whatever happens to its Send; any other is
 * answered for by its failure. The endpoint is closed before the Reply, so its Send fails.
 */
class ReplyMarshallerFailureTest {

    private static final ChunkLists NO_CHUNKS = new ChunkLists(List.of(), List.of(), Optional.empty());

    private Rnic rnic;
    private RdmaEndpoint endpoint;
    private final PullCompletions pulls = new PullCompletions(Duration.ofSeconds(30));
    private final AtomicInteger released = new AtomicInteger();

    @BeforeEach
    void closedEndpoint() throws Exception {
        rnic = Rnic.builder().eventLoopThreads(1).build();
        endpoint = RdmaEndpoint.forRequester(rnic, RpcRdmaSettings.defaults(), 4);
        endpoint.close().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        pulls.closeAll();
        rnic.close();
    }

    private Throwable failureOfAReplyOf(int octets, boolean responderReadChunks) {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().responderReadChunks(responderReadChunks).build();
        ReplyMarshaller replies = new ReplyMarshaller(settings, endpoint, PooledByteBufAllocator.DEFAULT, pulls);
        CompletableFuture<ReplyMarshaller.Form> sent = replies.send(7, null, NO_CHUNKS,
                XdrEncoder.create().writeOpaque(new byte[octets], octets).toMessage(), released::incrementAndGet);
        Throwable t = catchThrowable(() -> sent.get(10, TimeUnit.SECONDS));
        assertThat(t).as("the Send on a closed connection fails").isInstanceOf(ExecutionException.class);
        return t.getCause();
    }

    @Test
    void aReplyFailingAfterItsReadChunkWasExposedSaysSoAndItsReleaseComesOnce() {
        Throwable cause = failureOfAReplyOf(8192, true);
        assertThat(cause).isInstanceOf(ReplyMarshaller.ExposedReplyFailed.class);
        assertThat(pulls.waitingCount()).as("the chunk waits to be released").isEqualTo(1);
        pulls.closeAll();
        assertThat(released).as("its release answers the Call, once").hasValue(1);
    }

    @Test
    void anInlineReplyFailingIsAPlainFailure() {
        Throwable cause = failureOfAReplyOf(16, true);
        assertThat(cause).isNotInstanceOf(ReplyMarshaller.ExposedReplyFailed.class);
        assertThat(pulls.waitingCount()).isZero();
        assertThat(released).hasValue(0);
    }
}
