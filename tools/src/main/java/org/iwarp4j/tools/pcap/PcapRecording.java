package org.iwarp4j.tools.pcap;

import io.netty.channel.Channel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One pcap file holding every TCP connection given to {@link #record}: for each, Netty's
 * PcapWriteHandler next to the socket, from the connection's first octet (so the MPA Request and
 * Reply are in the file and Wireshark's MPA dissector finds the connection by itself) to its close.
 * Addresses and ports are the connection's own; TCP sequence numbers start at 1 and every segment
 * is acknowledged at once, as PcapWriteHandler synthesises them.
 *
 * <p>When both ends of one connection run in this process (a loopback run), both are given to
 * {@link #record} but only the end that becomes active first is recorded: either end sees the whole
 * byte stream, and the same segments twice would look like retransmissions to Wireshark.
 *
 * <p>Thread-safe: connections on any event loop write into the one file.
 */
public final class PcapRecording implements AutoCloseable {

    private static final int PCAP_GLOBAL_HEADER = 24;

    private final Path file;
    private final SharedPcapOutput output;
    private final Set<ConnectionKey> recorded = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    PcapRecording(Path file, SharedPcapOutput output) {
        this.file = file;
        this.output = output;
    }

    /** Creates (or truncates) {@code file} and writes the pcap global header. */
    public static PcapRecording open(Path file) throws IOException {
        return new PcapRecording(file, SharedPcapOutput.create(file));
    }

    public Path file() {
        return file;
    }

    /**
     * Records {@code channel} if it is a TCP connection: call it before the channel is active, before
     * any other handler is in its pipeline (a {@code ChannelInitializer}, or
     * {@code Rnic.Builder.channelInitializer}). Other channels are left alone.
     */
    public void record(Channel channel) {
        if (channel instanceof SocketChannel && !closed) {
            channel.pipeline().addFirst(new ConnectionGate(this));
        }
    }

    /**
     * Called by the gate when {@code channel} became active: {@code true} if this end is to be
     * recorded, {@code false} if the other end of the same connection already is.
     */
    boolean claim(Channel channel) {
        if (closed || !(channel.localAddress() instanceof InetSocketAddress local)
                || !(channel.remoteAddress() instanceof InetSocketAddress remote)) {
            return false;
        }
        ConnectionKey key = ConnectionKey.of(local, remote);
        if (!recorded.add(key)) {
            return false;
        }
        connections.incrementAndGet();
        // The ports may be used again by a later connection of the same run.
        channel.closeFuture().addListener(f -> recorded.remove(key));
        return true;
    }

    /** A PcapWriteHandler for one connection, writing into the shared file. */
    PcapWriteHandler newWriter() {
        return PcapWriteHandler.builder().sharedOutputStream(true).build(output);
    }

    /**
     * What to give {@code Rnic.Builder.capture}: {@code recording}'s {@link #record}, or a recorder
     * that records nothing when {@code recording} is {@code null} (no capture asked for).
     */
    public static java.util.function.Consumer<Channel> recorder(PcapRecording recording) {
        return recording == null ? channel -> { } : recording::record;
    }

    /**
     * {@code handler} for {@code Bootstrap.handler}, with {@code recording} in front of it; {@code
     * handler} itself when {@code recording} is {@code null}.
     */
    public static io.netty.channel.ChannelHandler recorded(PcapRecording recording,
                                                          io.netty.channel.ChannelHandler handler) {
        if (recording == null) {
            return handler;
        }
        return new io.netty.channel.ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                recording.record(ch);
                ch.pipeline().addLast(handler);
            }
        };
    }

    /** Connections recorded so far. */
    public int connections() {
        return connections.get();
    }

    /** Octets in the file so far, its global header included. */
    public long size() {
        return PCAP_GLOBAL_HEADER + output.octets();
    }

    /** The first error writing the file, or {@code null}: the records after it are missing. */
    public IOException failure() {
        return output.failure();
    }

    /** Flushes and closes the file; connections still open are no longer recorded. */
    @Override
    public void close() {
        closed = true;
        output.close();
    }

    boolean isClosed() {
        return closed;
    }

    /** The two ends of a TCP connection, in either order. */
    private record ConnectionKey(String low, String high) {
        static ConnectionKey of(InetSocketAddress a, InetSocketAddress b) {
            String x = a.getAddress().getHostAddress() + "/" + a.getPort();
            String y = b.getAddress().getHostAddress() + "/" + b.getPort();
            return x.compareTo(y) <= 0 ? new ConnectionKey(x, y) : new ConnectionKey(y, x);
        }
    }
}
