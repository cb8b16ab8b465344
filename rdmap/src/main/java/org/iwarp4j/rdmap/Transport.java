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
    /**
     * Linux's native epoll (fewer copies and syscalls than NIO). Needs Netty's native library for the
     * platform: the rdmap artifact brings the Linux x86_64 and aarch64 ones.
     */
    EPOLL,
    /** Java NIO: works everywhere. */
    NIO;

    /**
     * EPOLL where its native library loaded, NIO otherwise: on macOS, Windows, another CPU, or where
     * {@code -Dio.netty.transport.noNative=true} turns native transports off.
     */
    public static Transport best() {
        return choose(Epoll.isAvailable());
    }

    /** The choice {@link #best()} makes, given whether epoll is available. */
    static Transport choose(boolean epollAvailable) {
        return epollAvailable ? EPOLL : NIO;
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
