package org.iwarp4j.conformance.decode.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sorts TCP packets into connections and reassembles both directions of each, one connection at
 * a time and only those asked for: the heap then holds the packets and one connection's streams,
 * not every connection's streams at once.
 */
public final class TcpConnections {

    /**
     * One TCP connection: {@code client} is the side that sent the SYN (or, without one, the first
     * packet), in order of the connection's first frame.
     */
    public record Connection(long firstFrame, ByteStream client, ByteStream server, boolean synSeen) {
    }

    private record Key(InetSocketAddress a, InetSocketAddress b) {
        static Key of(InetSocketAddress x, InetSocketAddress y) {
            String sx = x.toString();
            String sy = y.toString();
            return sx.compareTo(sy) <= 0 ? new Key(x, y) : new Key(y, x);
        }
    }

    private static final class Pending {
        final long firstFrame;
        InetSocketAddress client;
        InetSocketAddress server;
        boolean synSeen;
        final List<TcpPacket> fromClient = new ArrayList<>();
        final List<TcpPacket> fromServer = new ArrayList<>();

        Pending(long firstFrame) {
            this.firstFrame = firstFrame;
        }
    }

    private final Map<Key, Pending> byAddresses = new HashMap<>();
    /** In order of first frame; a connection taken is {@code null}. */
    private final List<Pending> inOrder = new ArrayList<>();

    public void add(TcpPacket packet) {
        Pending p = byAddresses.computeIfAbsent(Key.of(packet.source(), packet.destination()), k -> {
            Pending first = new Pending(packet.frame());
            inOrder.add(first);
            return first;
        });
        if (p.client == null) {
            p.client = packet.source();
            p.server = packet.destination();
        }
        if (packet.has(TcpPacket.SYN) && !packet.has(TcpPacket.ACK) && !p.synSeen) {
            p.synSeen = true;
            if (!packet.source().equals(p.client)) { // the first packet was the server's: swap
                InetSocketAddress client = p.server;
                p.server = p.client;
                p.client = client;
                List<TcpPacket> fromClient = new ArrayList<>(p.fromServer);
                p.fromServer.clear();
                p.fromServer.addAll(p.fromClient);
                p.fromClient.clear();
                p.fromClient.addAll(fromClient);
            }
        }
        (packet.source().equals(p.client) ? p.fromClient : p.fromServer).add(packet);
    }

    /** The number of connections, iWARP or not. */
    public int size() {
        return inOrder.size();
    }

    /**
     * Reassembles connection {@code index} (numbered in order of first frame, as tshark's {@code
     * tcp.stream}) and lets go of its packets: each connection is taken once, after the last {@link
     * #add}.
     */
    public Connection take(int index) {
        Pending p = Objects.requireNonNull(inOrder.set(index, null), "connection taken twice");
        byAddresses.remove(Key.of(p.client, p.server));
        return new Connection(p.firstFrame, ByteStream.assemble(p.client, p.server, p.fromClient),
                ByteStream.assemble(Objects.requireNonNull(p.server), p.client, p.fromServer), p.synSeen);
    }
}
