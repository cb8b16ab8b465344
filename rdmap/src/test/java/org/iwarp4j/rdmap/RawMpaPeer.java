package org.iwarp4j.rdmap;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiatedParameters;

/**
 * A hand-driven peer: MPA only, no RDMAP. It connects as MPA Initiator (or, built with
 * {@link #acceptingFrom}, accepts as Responder), writes whatever ULPDUs a test crafts and records every ULPDU the RNIC under test sends back, so tests can compare the
 * exact octets of a Terminate with the RFC's.
 */
final class RawMpaPeer implements AutoCloseable {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Every octet that arrived, startup frame included, before MPA saw it. */
    private final java.util.concurrent.atomic.AtomicLong octetsReceived = new java.util.concurrent.atomic.AtomicLong();
    /** The first octets that arrived: the startup frame's 20-octet header and its private data. */
    private final java.io.ByteArrayOutputStream startupOctets = new java.io.ByteArrayOutputStream();
    NegotiatedParameters negotiated;
    private Channel channel;
    private Listener listener;
    private Channel server;

    private RawMpaPeer() {
    }

    RawMpaPeer(SocketAddress rnic, MpaSettings mpa) throws Exception {
        MpaStartupHandler startup = MpaStartupHandler.initiator(mpa);
        channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(recording(startup))
                .connect(rnic).sync().channel();
        negotiated = startup.startup().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** MPA startup, then every ULPDU copied into {@link #received}. */
    private ChannelInitializer<SocketChannel> recording(MpaStartupHandler startup) {
        return new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf octets = (ByteBuf) msg;
                        octetsReceived.addAndGet(octets.readableBytes());
                        int wanted = 20 + 512 - startupOctets.size();
                        if (wanted > 0) {
                            startupOctets.writeBytes(ByteBufUtil.getBytes(octets, octets.readerIndex(),
                                    Math.min(wanted, octets.readableBytes())));
                        }
                        ctx.fireChannelRead(msg);
                    }
                });
                ch.pipeline().addLast(startup, new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf ulpdu = (ByteBuf) msg;
                        received.add(ByteBufUtil.getBytes(ulpdu));
                        ulpdu.release();
                    }

                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        closed.complete(null);
                    }
                });
            }
        };
    }

    /**
     * The raw peer as MPA Responder: it listens (offering {@code peerMpa}), {@code queuePair}
     * connects to it, and this returns once {@code queuePair} is in RTS.
     */
    static RawMpaPeer acceptingFrom(QueuePair queuePair, MpaSettings peerMpa) throws Exception {
        RawMpaPeer peer = new RawMpaPeer();
        CompletableFuture<MpaStartupHandler> startup = new CompletableFuture<>();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        try {
            peer.server = new ServerBootstrap().group(peer.group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            MpaStartupHandler responder = MpaStartupHandler.responder(peerMpa,
                                    ConnectRequestHandler.ACCEPT_ALL);
                            ch.pipeline().addLast(peer.recording(responder));
                            startup.complete(responder);
                            accepted.complete(ch);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            queuePair.connect(peer.server.localAddress()).get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            peer.channel = accepted.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            peer.negotiated = startup.get().startup().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    /**
     * {@code rnic} listens with {@code listenMpa} and accepts the one connection with {@code queuePair};
     * a raw peer connects (offering {@code peerMpa}) and this returns once {@code queuePair} is in RTS.
     * Closing the peer also closes the listener.
     */
    static RawMpaPeer connectedTo(Rnic rnic, QueuePair queuePair, MpaSettings listenMpa, MpaSettings peerMpa)
            throws Exception {
        Listener listener = rnic.listen(new java.net.InetSocketAddress("127.0.0.1", 0), listenMpa,
                request -> request.accept(queuePair));
        RawMpaPeer peer;
        try {
            peer = new RawMpaPeer(listener.localAddress(), peerMpa);
        } catch (Exception e) {
            listener.close();
            throw e;
        }
        peer.listener = listener;
        queuePair.established().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        return peer;
    }

    /** The ULPDU (DDP segment) inside one of the FPDU vectors of testdata/vectors/fpdus.txt, e.g. {@code V-FPDU-5}. */
    static byte[] ulpduOf(String vector) {
        byte[] fpdu = org.iwarp4j.testkit.TestVectors.bytes(vector);
        int length = (fpdu[0] & 0xFF) << 8 | fpdu[1] & 0xFF;
        return java.util.Arrays.copyOfRange(fpdu, 2, 2 + length);
    }

    /**
     * Octets that arrived after the RNIC's startup frame (20 octets and PD_Length octets of private
     * data, RFC 5044 §7.1.1): everything it sent in Full Operation, whether MPA could parse it or not.
     */
    long octetsAfterStartupFrame() {
        byte[] frame = startupOctets.toByteArray();
        int privateDataLength = (frame[18] & 0xFF) << 8 | frame[19] & 0xFF;
        return octetsReceived.get() - 20 - privateDataLength;
    }

    /** Writes {@code octets} as they are, under MPA: a test's hand-made FPDU, right or wrong. */
    void sendRaw(byte[] octets) {
        channel.pipeline().firstContext().writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(octets))
                .syncUninterruptibly();
    }

    /** Sends one ULPDU (a DDP segment) as one FPDU. */
    void send(byte[] ulpdu) {
        channel.writeAndFlush(channel.alloc().buffer(ulpdu.length).writeBytes(ulpdu)).syncUninterruptibly();
    }

    /**
     * Sends ULPDUs as FPDUs with one flush after the last, so that they leave in one TCP write and
     * the RNIC most likely reads them in one go, handling them in one event loop task.
     */
    void sendTogether(byte[]... ulpdus) {
        io.netty.channel.ChannelFuture last = null;
        for (byte[] ulpdu : ulpdus) {
            last = channel.write(channel.alloc().buffer(ulpdu.length).writeBytes(ulpdu));
        }
        channel.flush();
        last.syncUninterruptibly();
    }

    /** The next ULPDU from the RNIC under test. */
    byte[] take() throws InterruptedException {
        byte[] ulpdu = received.poll(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        if (ulpdu == null) {
            throw new AssertionError("nothing received within " + RdmaPair.WAIT_SECONDS + " s");
        }
        return ulpdu;
    }

    /** Fixes the socket's receive buffer (SO_RCVBUF), which also stops the kernel from growing it. */
    void limitReceiveBuffer(int octets) {
        channel.config().setOption(ChannelOption.SO_RCVBUF, octets);
    }

    /** Stops (or resumes) reading from the socket, so that what the RNIC sends backs up in TCP. */
    void setAutoRead(boolean autoRead) {
        channel.config().setAutoRead(autoRead);
    }

    /** The next ULPDU from the RNIC under test, or {@code null} if none came within {@code millis}. */
    byte[] poll(long millis) throws InterruptedException {
        return received.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Waits until the RNIC closed the connection, then returns every ULPDU not yet taken, in order. */
    java.util.List<byte[]> takeAllUntilClosed() throws Exception {
        closed.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        java.util.List<byte[]> rest = new java.util.ArrayList<>();
        received.drainTo(rest);
        return rest;
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        if (listener != null) {
            listener.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
