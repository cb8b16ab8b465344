package org.iwarp4j.tools.bench.internal;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;

/**
 * The plain-TCP ends run on the same Netty transport as the RNICs (epoll, NIO or io_uring), one event loop
 * each as the RNICs have, so the RDMA / TCP ratio compares protocols rather than I/O layers. The one
 * choice of Netty classes for every TCP baseline: {@code iwarp bench}'s, {@code iwarp bench rpc}'s and
 * the loopback harness's.
 */
public final class NettyIo {

    private NettyIo() {
    }

    public static EventLoopGroup group(Transport transport) {
        return group(transport, 1);
    }

    /** {@code threads} event loops (one per queue pair of a {@code -q} run). */
    public static EventLoopGroup group(Transport transport, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, transport.ioHandlerFactory());
    }

    /**
     * How {@code iwarp bench}'s plain-TCP ends size their reads: as the RNIC does, adaptively from
     * 2 KiB up to {@link Rnic#MAX_READ} (256 KiB) per read. With Netty's default (at most 64 KiB) a
     * baseline took up to four times RDMA's read calls for the same octets, a handicap of the
     * harness rather than of TCP.
     */
    public static RecvByteBufAllocator receiveBuffers() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, Rnic.MAX_READ);
    }

    public static Class<? extends SocketChannel> socketChannel(Transport transport) {
        return transport.socketChannel();
    }

    public static Class<? extends ServerChannel> serverSocketChannel(Transport transport) {
        return transport.serverSocketChannel();
    }
}
