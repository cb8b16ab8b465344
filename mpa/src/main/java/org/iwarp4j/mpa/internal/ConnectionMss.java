package org.iwarp4j.mpa.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The current sending MSS of a connected TCP channel, where the transport can tell: Linux epoll
 * reads TCP_INFO's {@code tcpi_snd_mss} (the MSS TCP uses now, options such as timestamps taken
 * off: RFC 5044 §4.5's EMSS); Netty's other native transports (io_uring) read the socket option
 * TCP_MAXSEG, which on a connected Linux socket is the same value ({@code tp->mss_cache}). Java
 * NIO has no API for it.
 */
public final class ConnectionMss {

    /**
     * getsockopt(IPPROTO_TCP, TCP_MAXSEG): 6 and 2 on Linux (and the BSDs). Netty's native
     * transports pass such an option straight to the socket; NIO does not know it and answers null.
     */
    static final ChannelOption<Integer> TCP_MAXSEG = new IntegerUnixChannelOption("TCP_MAXSEG", 6, 2);

    private ConnectionMss() {
    }

    /** The MSS of {@code channel}, or 0 if the transport does not report it. */
    public static int of(Channel channel) {
        try {
            if (!channel.isActive()) {
                return 0;
            }
            if (channel instanceof EpollSocketChannel) {
                long mss = ((EpollSocketChannel) channel).tcpInfo().sndMss();
                return mss > 0 && mss <= Integer.MAX_VALUE ? (int) mss : 0;
            }
            if (channel instanceof SocketChannel) {
                Integer mss = channel.config().getOption(TCP_MAXSEG);
                return mss != null && mss > 0 ? mss : 0;
            }
        } catch (LinkageError | RuntimeException e) {
            // The native classes are absent or the socket is gone: fall back to the configured EMSS.
        }
        return 0;
    }

    /**
     * Whether {@code channel} runs over IPv6 (an IPv4-mapped peer address counts as IPv4), which
     * makes the fallback EMSS 20 octets smaller.
     */
    public static boolean ipv6(Channel channel) {
        SocketAddress remote = channel.remoteAddress();
        return remote instanceof InetSocketAddress && ((InetSocketAddress) remote).getAddress() instanceof Inet6Address;
    }
}
