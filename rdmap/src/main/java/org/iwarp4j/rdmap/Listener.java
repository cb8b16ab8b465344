package org.iwarp4j.rdmap;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.net.SocketAddress;
import java.util.function.BooleanSupplier;

/** A listening endpoint made by {@link Rnic#listen}; closing it stops accepting, not the connections. */
public final class Listener implements AutoCloseable {

    private final Channel serverChannel;
    /** Whether the calling thread is one of the RNIC's event loops, where {@link #close()} does not wait. */
    private final BooleanSupplier onEventLoop;

    Listener(Channel serverChannel, BooleanSupplier onEventLoop) {
        this.serverChannel = serverChannel;
        this.onEventLoop = onEventLoop;
    }

    public SocketAddress localAddress() {
        return serverChannel.localAddress();
    }

    /**
     * Stops listening; returns once the listening socket is closed. Called on one of the RNIC's
     * event loops (a completion queue listener, a connection request handler, a queue pair's
     * callback) it does not wait, as {@link Rnic#close()} does not there: on the loop the listener
     * runs on the socket is closed when this returns, on another of the RNIC's loops once that loop
     * has run the close. (Waiting there, two loops closing each other's listeners would wait for
     * each other for ever.) On another RNIC's event loop it does wait, as it cannot tell that
     * thread from any other: two RNICs whose loops close each other's listeners at the same time
     * wait for each other for ever. Close a listener of another RNIC from a thread of your own.
     */
    @Override
    public void close() {
        ChannelFuture closed = serverChannel.close();
        if (!onEventLoop.getAsBoolean()) {
            closed.syncUninterruptibly();
        }
    }
}
