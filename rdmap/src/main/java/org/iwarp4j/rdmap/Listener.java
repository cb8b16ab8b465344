package org.iwarp4j.rdmap;

import io.netty.channel.Channel;
import java.net.SocketAddress;

/** A listening endpoint made by {@link Rnic#listen}; closing it stops accepting, not the connections. */
public final class Listener implements AutoCloseable {

    private final Channel serverChannel;

    Listener(Channel serverChannel) {
        this.serverChannel = serverChannel;
    }

    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
    }
}
