package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.words;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RPC-R-003 for messages answered with RDMA_ERROR (RPC-R-064, RPC-R-070): each counts against the
 * credits until its answer's Send completed, as a Call does until its Reply's. A Requester that
 * sends such messages and reads nothing loses its connection once more than twice the grant are
 * unanswered, and cannot make the Responder register a Send (an STag from the RNIC's one table,
 * held until the Send completes) per message: before, none was counted, and such a Requester could
 * hold about 8,000 STags per connection, 8 connections the whole table of 65,536.
 *
 * <p>The Requester stops reading its TCP connection, then sends a Call whose result is RDMA Written
 * into an 8 MiB Write chunk, more than the sockets between them hold: every Send the Responder posts
 * after that Write waits behind it for good.
 */
class ErrorAnswerCreditsTest {

    private static final long WAIT_SECONDS = RpcRdmaPair.WAIT_SECONDS;
    private static final int GRANT = 2;
    /** Messages sent after the Write: far more than the line of 2 × GRANT and than the Send slots. */
    private static final int FLOOD = 200;
    private static final int SEGMENTS = 8;
    private static final int SEGMENT = 1 << 20;

    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
    private final CompletableFuture<Channel> peerChannel = new CompletableFuture<>();
    private final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).channelInitializer(peerChannel::complete).build();
    private final ByteBuf memory = Unpooled.directBuffer(SEGMENTS * SEGMENT).writeZero(SEGMENTS * SEGMENT);
    private RpcRdmaServer server;

    @AfterEach
    void close() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            clientRnic.close();
            serverRnic.close();
            memory.release();
        }
    }

    @Test
    void rdmaMsgpAnsweredWithErrChunkCountsAgainstTheCredits() throws Exception { // RPC-R-070
        floodWithoutReading(xid -> concat(fixed(xid, 1, 1, 2), words(4, 1024, 0, 0, 0), echoCall(xid, 0, new byte[0])),
                RpcRdmaResponder::errChunkSent);
    }

    @Test
    void headersOfAnotherVersionAnsweredWithErrVersCountAgainstTheCredits() throws Exception { // RPC-R-064
        floodWithoutReading(xid -> concat(fixed(xid, 2, 1, 0), words(0, 0, 0), echoCall(xid, 0, new byte[0])),
                RpcRdmaResponder::errVersSent);
    }

    private void floodWithoutReading(IntFunction<byte[]> message, ToLongFunction<RpcRdmaResponder> errorsSent)
            throws Exception {
        // No idle timeout; the Reply send bound ends the connection once nothing moves (the close
        // for the credits is graceful and waits for the very Sends that do not leave).
        server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()), RpcRdmaSettings.builder().credits(GRANT)
                        .binding(new EchoBinding()).idleTimeout(Duration.ZERO).maxReplySendTime(Duration.ofSeconds(3))
                        .build());
        try (RawPeer peer = RawPeer.requester(clientRnic, server.localAddress());
             MemoryRegion sink = peer.qp.register(memory, EnumSet.of(Access.REMOTE_WRITE))) {
            RpcRdmaResponder responder = server.responders().get(0);
            RdmaEndpoint endpoint = responder.endpoint();
            Channel channel = peerChannel.get(WAIT_SECONDS, TimeUnit.SECONDS);
            channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            peer.send(concat(fixed(0x71, 1, 1, 0), Messages.oneWriteChunk(sink, SEGMENTS, SEGMENT),
                    echoCall(0x71, EchoProgram.PROC_SOURCE, words(SEGMENTS * SEGMENT))));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (endpoint.sendsOutstanding() == 0) {
                assertThat(System.nanoTime()).as("the Reply's RDMA Write posted").isLessThan(deadline);
                Thread.onSpinWait();
            }

            for (int xid = 1; xid <= FLOOD; xid++) {
                peer.send(message.apply(xid)); // completes once our socket took it: the Responder reads on
            }

            // A well-behaved Requester on another connection is served meanwhile.
            try (RawPeer other = RawPeer.requester(clientRnic, server.localAddress())) {
                other.send(concat(fixed(0x99, 1, 1, 0), words(0, 0, 0), echoCall(0x99, EchoProgram.PROC_NULL,
                        new byte[0])));
                assertThat(other.receive()).startsWith(words(0x99, 1, GRANT, 0));
            }

            responder.closeFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(responder.overCredits()).as("closed for the credits").isTrue();
            // The Call holds one count; 2 × GRANT - 1 errors fit under the line, none past it is sent.
            assertThat(errorsSent.applyAsLong(responder)).isEqualTo(2 * GRANT - 1);
            assertThat(endpoint.sendsRegistered()).as("STags taken for Sends beyond the slots")
                    .isLessThanOrEqualTo(2 * GRANT);
            assertThat(endpoint.registeredSendsOutstanding()).isZero();
        }
    }
}
