package org.iwarp4j.rdmap;

import io.netty.channel.ChannelHandler;

/** Lets fuzz targets in {@code org.iwarp4j.rdmap.fuzz} put a queue pair's engine in an EmbeddedChannel. */
public final class FuzzAccess {

    private FuzzAccess() {
    }

    /** The handler that {@link Rnic} puts after MPA for {@code queuePair}. */
    public static ChannelHandler engine(QueuePair queuePair) {
        return queuePair.newEngine();
    }
}
