package org.iwarp4j.oncrpc;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.SocketAddress;

/**
 * An EmbeddedChannel whose peer is {@code remote}: every plain EmbeddedChannel has the same remote
 * address, so the server counts them all as one client.
 */
final class ChannelFromAddress extends EmbeddedChannel {
    private final SocketAddress remote;

    ChannelFromAddress(SocketAddress remote) {
        this.remote = remote;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }
}
