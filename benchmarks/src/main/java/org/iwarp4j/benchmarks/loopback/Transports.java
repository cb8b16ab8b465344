package org.iwarp4j.benchmarks.loopback;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.iwarp4j.rdmap.Transport;

/** The plain-TCP baselines' Netty classes for the transport the RNICs use. */
final class Transports {

    private Transports() {
    }

    static EventLoopGroup group(Transport transport) {
        return new MultiThreadIoEventLoopGroup(1,
                transport == Transport.EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    static Class<? extends ServerChannel> serverChannel(Transport transport) {
        return transport == Transport.EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    static Class<? extends SocketChannel> channel(Transport transport) {
        return transport == Transport.EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
