package org.iwarp4j.mpa;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** An MPA Initiator and Responder connected over real loopback TCP. */
final class LoopbackMpa implements AutoCloseable {

    final TestUlp initiator;
    final TestUlp responder;
    private final Channel serverChannel;

    private LoopbackMpa(Channel serverChannel, TestUlp initiator, TestUlp responder) {
        this.serverChannel = serverChannel;
        this.initiator = initiator;
        this.responder = responder;
    }

    static LoopbackMpa connect(EventLoopGroup group, MpaSettings initiatorSettings, MpaSettings responderSettings,
                               ConnectRequestHandler decision) throws Exception {
        return connect(group, initiatorSettings, responderSettings, decision, null, null);
    }

    /**
     * Connects; {@code initiatorPcap} and {@code responderPcap}, if not null, receive each end's
     * view of the traffic as a pcap stream (Netty's PcapWriteHandler next to the socket).
     */
    static LoopbackMpa connect(EventLoopGroup group, MpaSettings initiatorSettings, MpaSettings responderSettings,
                               ConnectRequestHandler decision, OutputStream initiatorPcap,
                               OutputStream responderPcap) throws Exception {
        return connect(group, NioServerSocketChannel.class, NioSocketChannel.class, initiatorSettings,
                responderSettings, decision, initiatorPcap, responderPcap);
    }

    /** Connects over the given transport's channels ({@code group} must run that transport). */
    static LoopbackMpa connect(EventLoopGroup group, Class<? extends ServerChannel> serverChannel,
                               Class<? extends SocketChannel> clientChannel, MpaSettings initiatorSettings,
                               MpaSettings responderSettings, ConnectRequestHandler decision,
                               OutputStream initiatorPcap, OutputStream responderPcap) throws Exception {
        return connect(group, "127.0.0.1", serverChannel, clientChannel, initiatorSettings, responderSettings,
                decision, initiatorPcap, responderPcap);
    }

    /** Connects over {@code host}, a loopback address (127.0.0.1 or ::1). */
    static LoopbackMpa connect(EventLoopGroup group, String host, Class<? extends ServerChannel> serverChannel,
                               Class<? extends SocketChannel> clientChannel, MpaSettings initiatorSettings,
                               MpaSettings responderSettings, ConnectRequestHandler decision,
                               OutputStream initiatorPcap, OutputStream responderPcap) throws Exception {
        CompletableFuture<TestUlp> accepted = new CompletableFuture<>();
        Channel server = new ServerBootstrap()
                .group(group)
                .channel(serverChannel)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        TestUlp ulp = new TestUlp();
                        if (responderPcap != null) {
                            ch.pipeline().addLast(new PcapWriteHandler(responderPcap));
                        }
                        ch.pipeline().addLast(MpaStartupHandler.responder(responderSettings, decision), ulp);
                        accepted.complete(ulp);
                    }
                })
                .bind(host, 0).sync().channel();
        InetSocketAddress serverAddress = (InetSocketAddress) server.localAddress();
        TestUlp initiator = new TestUlp();
        new Bootstrap()
                .group(group)
                .channel(clientChannel)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (initiatorPcap != null) {
                            ch.pipeline().addLast(new PcapWriteHandler(initiatorPcap));
                        }
                        ch.pipeline().addLast(MpaStartupHandler.initiator(initiatorSettings), initiator);
                    }
                })
                .connect(serverAddress).sync();
        return new LoopbackMpa(server, initiator, accepted.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Override
    public void close() throws Exception {
        if (initiator.channel != null) {
            initiator.channel.close().sync();
        }
        if (responder.channel != null) {
            responder.channel.close().sync();
        }
        serverChannel.close().sync();
    }
}
