package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hostile Initiator against {@link RpcRdmaServer} (the RDMA side of an NFS server): after a valid
 * MPA Request (CRC on) its first FPDU has a wrong CRC. Our Responder may not send anything before
 * the Initiator's first FPDU arrived intact (RFC 5044 §7.1.2 #4, MPA-R-061), so it cannot send the
 * Terminate either; it must still close the TCP connection (RFC 5040 §7, RDMAP-R-046; MPA leaves
 * that to the ULP for a CRC error, MPA-R-075), and at once, whatever rpcrdma does. The raw peer
 * here is MPA only; it checks that not one octet follows the Reply, and that the connection closes.
 */
class HostileFirstFpduTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CompletableFuture<Channel> serverConnection = new CompletableFuture<>();
    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).meterRegistry(registry)
            .channelInitializer(ch -> {
                if (ch instanceof SocketChannel) {
                    serverConnection.complete(ch);
                }
            }).build();
    private final EventLoopGroup peerGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final AtomicLong octetsReceived = new AtomicLong();
    private final CompletableFuture<Void> peerClosed = new CompletableFuture<>();
    private RpcRdmaServer server;

    @AfterEach
    void tearDown() {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            serverRnic.close();
            peerGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** An MPA Initiator and nothing above it: counts every octet that arrives, drops ULPDUs. */
    private Channel connectRawInitiator(MpaStartupHandler startup) throws InterruptedException {
        return new Bootstrap().group(peerGroup).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                octetsReceived.addAndGet(((ByteBuf) msg).readableBytes());
                                ctx.fireChannelRead(msg);
                            }
                        }, startup, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ReferenceCountUtil.release(msg);
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                peerClosed.complete(null);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                // The peer's own MPA may complain of a close; the test looks at the wire.
                            }
                        });
                    }
                })
                .connect(server.localAddress()).sync().channel();
    }

    /** A zero-length RDMA Write (STag 0, TO 0) as an FPDU with its CRC's last octet flipped. */
    private static byte[] zeroLengthWriteWithBadCrc() {
        byte[] fpdu = new byte[2 + 14 + 4 + 4];
        fpdu[1] = 14; // ULPDU_Length
        fpdu[2] = (byte) 0xC1; // DDP: tagged, last, version 1
        fpdu[3] = 0x40; // RDMAP: version 1, opcode RDMA Write
        CRC32C crc = new CRC32C();
        crc.update(fpdu, 0, 20); // ULPDU_Length, ULPDU, 2 octets of PAD
        int value = (int) crc.getValue() ^ 0x01000000;
        for (int i = 0; i < 4; i++) {
            fpdu[20 + i] = (byte) (value >> (8 * i)); // least-significant octet first
        }
        return fpdu;
    }

    @Test
    void aBadCrcInTheFirstFpduClosesTheConnectionAtOnceWithoutSendingAnything() throws Exception {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).build();
        server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()), settings);
        CompletableFuture<RpcRdmaResponder> connected = new CompletableFuture<>();
        server.onConnection(connected::complete);

        MpaStartupHandler startup = MpaStartupHandler.initiator(MpaSettings.builder()
                .privateData(RpcRdmaPrivateData.of(true, 4096, 4096).encode()).build());
        Channel peer = connectRawInitiator(startup);
        NegotiatedParameters negotiated = startup.startup().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(negotiated.crc()).isTrue();
        RpcRdmaResponder responder = connected.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        QueuePair qp = responder.queuePair();
        assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        assertThat(server.responders()).hasSize(1);
        assertThat(registry.get("iwarp.rnic.queue.pairs").gauge().value()).isEqualTo(1);
        // The Reply: 20 octets, then PD_Length octets of private data (RFC 6581 IRD/ORD, RFC 8797).
        long replyOctets = 20 + (negotiated.peerEnhancedData() == null ? 0 : 4)
                + negotiated.peerPrivateData().length;
        assertThat(octetsReceived.get()).isEqualTo(replyOctets);

        CompletableFuture<Long> closedAt = peerClosed.thenApply(v -> System.nanoTime());
        long sent = System.nanoTime();
        // Under the peer's MPA encoder: the octets go out exactly as made.
        peer.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(zeroLengthWriteWithBadCrc())).sync();
        long closeNanos = closedAt.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS) - sent;
        System.out.printf("RpcRdmaServer closed the connection %.1f ms after the bad first FPDU "
                + "(terminate close timeout %s not needed)%n", closeNanos / 1e6,
                QueuePairSettings.DEFAULT_TERMINATE_CLOSE_TIMEOUT);

        qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        // The server forgets the connection on the event loop as it closes; a task behind that sees it.
        serverConnection.get().eventLoop().submit(() -> { }).get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(octetsReceived.get()).as("octets after the MPA Reply (MPA-R-061)").isEqualTo(replyOctets);
        assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(qp.terminateReason()).isEqualTo(TerminateReason.LLP_CRC_ERROR);
        assertThat(qp.terminateWithheld()).isTrue();
        assertThat(server.responders()).isEmpty();
        assertThat(registry.get("iwarp.rnic.queue.pairs").gauge().value()).isZero();
        assertThat(registry.get("iwarp.rdmap.terminates.withheld").counter().count()).isEqualTo(1);
    }
}
