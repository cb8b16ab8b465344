package org.iwarp4j.tools.rping;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
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
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiatedParameters;

/**
 * A peer with MPA and nothing above it, standing in for Linux rping over siw: the test writes the
 * ULPDUs siw's rping sent (from a capture) and reads every ULPDU our rping sends back. It records
 * the peer's startup frame octets as they arrived, for byte-for-byte comparison with the capture.
 */
final class RawMpaPeer implements AutoCloseable {

    static final int WAIT_SECONDS = 30;
    /** The ULPDU of our Initiator's wake-up Write: DDP tagged, L=1, RDMAP Write, STag 1, TO 0. */
    private static final byte[] WAKE_UP_WRITE = org.iwarp4j.testkit.Hex.decode("c140 00000001 00000000 00000000");

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream firstInbound = new ByteArrayOutputStream();
    private final int startupFrameLength;
    final CompletableFuture<Channel> connected = new CompletableFuture<>();
    final CompletableFuture<NegotiatedParameters> negotiated = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    private Channel serverChannel;
    /** Wake-up Writes {@link #next} passed over (test thread only). */
    private int wakeUpWrites;

    private RawMpaPeer(int startupFrameLength) {
        this.startupFrameLength = startupFrameLength;
    }

    /** An MPA Initiator connected to {@code remote}; the peer's Reply is expected to be {@code replyLength} octets. */
    static RawMpaPeer connect(SocketAddress remote, MpaSettings mpa, int replyLength) throws Exception {
        RawMpaPeer peer = new RawMpaPeer(replyLength);
        try {
            new Bootstrap().group(peer.group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(peer.initializer(MpaStartupHandler.initiator(mpa)))
                    .connect(remote).sync();
        } catch (Exception e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    /** An MPA Responder on a loopback port, for one connection; the Request is expected to be {@code requestLength} octets. */
    static RawMpaPeer listen(MpaSettings mpa, ConnectRequestHandler handler, int requestLength) throws Exception {
        RawMpaPeer peer = new RawMpaPeer(requestLength);
        try {
            peer.serverChannel = new ServerBootstrap().group(peer.group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(peer.initializer(MpaStartupHandler.responder(mpa, handler)))
                    .bind("127.0.0.1", 0).sync().channel();
        } catch (Exception e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    private ChannelInitializer<SocketChannel> initializer(MpaStartupHandler startup) {
        startup.startup().whenComplete((p, e) -> {
            if (e != null) {
                negotiated.completeExceptionally(e);
            } else {
                negotiated.complete(p);
            }
        });
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                connected.complete(ch);
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf bytes = (ByteBuf) msg;
                        int wanted = startupFrameLength - firstInbound.size();
                        if (wanted > 0) {
                            firstInbound.writeBytes(ByteBufUtil.getBytes(bytes, bytes.readerIndex(),
                                    Math.min(wanted, bytes.readableBytes())));
                        }
                        ctx.fireChannelRead(msg);
                    }
                }, startup, new ChannelInboundHandlerAdapter() {
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

    /** The peer's Request or Reply frame as it arrived (the octets before MPA Full Operation). */
    byte[] peerStartupFrame() {
        return firstInbound.toByteArray();
    }

    /** Sends one ULPDU (MPA frames it as an FPDU, with CRC if negotiated). */
    void send(byte[] ulpdu) throws Exception {
        connected.get(WAIT_SECONDS, TimeUnit.SECONDS).writeAndFlush(Unpooled.wrappedBuffer(ulpdu))
                .sync();
    }

    /**
     * The next ULPDU from the peer, or an AssertionError after the wait. A wake-up Write is passed
     * over: our rping client, an MPA Initiator, sends one (a zero-length RDMA Write, STag 1, TO 0;
     * QueuePairSettings.Builder#wakeUpWriteAfter) if this peer has said nothing a second after its
     * first FPDU, which a loaded machine holding up the test thread that plays siw's part can make
     * happen, once only.
     */
    byte[] next(String what) throws InterruptedException {
        while (true) {
            byte[] u = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (u == null) {
                throw new AssertionError("no ULPDU within " + WAIT_SECONDS + " s: expected " + what);
            }
            if (!Arrays.equals(u, WAKE_UP_WRITE)) {
                return u;
            }
            if (++wakeUpWrites > 1) {
                throw new AssertionError("a second wake-up Write, expected " + what);
            }
        }
    }

    /** ULPDUs received and not yet taken. */
    int pending() {
        return received.size();
    }

    void disconnect() throws Exception {
        connected.get(WAIT_SECONDS, TimeUnit.SECONDS).close().sync();
    }

    @Override
    public void close() {
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        // The connection (an accepted one, as Responder) is closed here, not left to the group's
        // shutdown: Netty 4.2 does not tear down a channel still open then, and its MPA decoder's
        // cumulation and encoder's buffers would never be released.
        Channel connection = connected.getNow(null);
        if (connection != null) {
            connection.close().awaitUninterruptibly(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
