package org.iwarp4j.rdmap;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** The TCP implementation an {@link Rnic} runs its connections on. */
public enum Transport {
    /** Linux's native epoll (fewer copies and syscalls than NIO); needs Linux on x86_64. */
    EPOLL,
    /** Java NIO: works everywhere. */
    NIO;

    /** EPOLL where it is available, NIO otherwise. */
    public static Transport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    Class<? extends ServerChannel> serverSocketChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
