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
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.Optional;
import java.util.function.Consumer;

/** The TCP implementation an {@link Rnic} runs its connections on. */
public enum Transport {
    /**
     * Linux's native epoll (fewer copies and syscalls than NIO). Needs Netty's native library for the
     * platform: the rdmap artifact brings the Linux x86_64 and aarch64 ones.
     */
    EPOLL,
    /** Java NIO: works everywhere. */
    NIO,
    /**
     * Linux's io_uring (Netty 4.2's transport), opt-in: never chosen by {@link #best()}. Needs a
     * kernel that allows io_uring (5.9 or later; some container sandboxes forbid it) and Netty's
     * native library (the rdmap artifact brings the Linux x86_64 one). MULPDU follows the
     * connection's MSS (read as TCP_MAXSEG). Direct placement copies each read into place instead
     * of reading into the registered memory as on epoll: a receive returns on a later turn of the
     * event loop, and a read into registered memory holds the region's guard until it returned,
     * which a deregistration run on that loop meanwhile would wait for forever.
     */
    IO_URING;

    /** Whether this transport can run here (NIO always; the native ones if their library loaded and the kernel allows them). */
    public boolean isAvailable() {
        switch (this) {
            case EPOLL:
                return Epoll.isAvailable();
            case IO_URING:
                return IoUring.isAvailable();
            default:
                return true;
        }
    }

    /** Why this transport cannot run here, or empty if it can. */
    public Optional<String> unavailabilityCause() {
        if (isAvailable()) {
            return Optional.empty();
        }
        Throwable cause = this == EPOLL ? Epoll.unavailabilityCause() : IoUring.unavailabilityCause();
        return Optional.of(cause == null ? "unknown" : String.valueOf(cause.getMessage() != null
                ? cause.getMessage() : cause));
    }

    /**
     * {@code wanted} if it can run here, else {@link #best()}, after telling {@code warn} which and
     * why (for a command line's {@code --transport}: fall back rather than fail).
     */
    public static Transport orBest(Transport wanted, Consumer<String> warn) {
        if (wanted.isAvailable()) {
            return wanted;
        }
        Transport best = best();
        warn.accept(wanted + " is not available here (" + wanted.unavailabilityCause().orElse("unknown")
                + "); using " + best);
        return best;
    }

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

    /** Netty's I/O handler factory for this transport's event loops (for plain-TCP comparisons on the same transport). */
    public IoHandlerFactory ioHandlerFactory() {
        switch (this) {
            case EPOLL:
                return EpollIoHandler.newFactory();
            case IO_URING:
                return IoUringIoHandler.newFactory();
            default:
                return NioIoHandler.newFactory();
        }
    }

    /** Netty's client socket channel class of this transport. */
    public Class<? extends SocketChannel> socketChannel() {
        switch (this) {
            case EPOLL:
                return EpollSocketChannel.class;
            case IO_URING:
                return IoUringSocketChannel.class;
            default:
                return NioSocketChannel.class;
        }
    }

    /** Netty's server socket channel class of this transport. */
    public Class<? extends ServerChannel> serverSocketChannel() {
        switch (this) {
            case EPOLL:
                return EpollServerSocketChannel.class;
            case IO_URING:
                return IoUringServerSocketChannel.class;
            default:
                return NioServerSocketChannel.class;
        }
    }
}
