package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The example of docs/mpa.md, compiled and run; keep the two in step. */
class ReadmeExampleTest {

    @Test
    void readmeExampleRuns() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        try {
            // --- docs/mpa.md example begins ---
            // Responder (TCP server): accept every Request, answer with our private data.
            MpaSettings serverSettings = MpaSettings.builder()
                    .privateData("hello initiator".getBytes(StandardCharsets.US_ASCII))
                    .build();
            CompletableFuture<String> received = new CompletableFuture<>();
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(
                                    MpaStartupHandler.responder(serverSettings, ConnectRequestHandler.ACCEPT_ALL),
                                    new SimpleChannelInboundHandler<ByteBuf>() { // one ULPDU per message
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf ulpdu) {
                                            received.complete(ulpdu.toString(StandardCharsets.US_ASCII));
                                            ctx.close(); // this server takes one ULPDU per connection
                                        }
                                    });
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();

            // Initiator (TCP client): MPA revision 2 with CRC (the defaults), markers if asked.
            MpaStartupHandler initiator = MpaStartupHandler.initiator(MpaSettings.builder().build());
            Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(initiator)
                    .connect(server.localAddress()).sync().channel();

            NegotiatedParameters negotiated = initiator.startup().get(10, TimeUnit.SECONDS);
            System.out.println(negotiated); // revision, CRC, markers, MULPDU, IRD/ORD, peer's private data
            client.writeAndFlush(client.alloc().buffer().writeBytes("one ULPDU".getBytes(StandardCharsets.US_ASCII)));
            System.out.println(received.get(10, TimeUnit.SECONDS)); // "one ULPDU", framed as an FPDU with CRC32c
            // --- docs/mpa.md example ends ---

            assertThat(negotiated.peerPrivateData()).isEqualTo("hello initiator".getBytes(StandardCharsets.US_ASCII));
            assertThat(negotiated.crc()).isTrue();
            assertThat(received.get()).isEqualTo("one ULPDU");
            // The Initiator closes when it reads the end of the stream: the accepted connection was closed.
            assertThat(client.closeFuture().await(10, TimeUnit.SECONDS)).as("the Responder closed its connection")
                    .isTrue();
            assertThat(server.close().await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            assertThat(group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
