package org.iwarp4j.conformance.decode.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Sorts TCP packets into connections and reassembles both directions of each. */
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

    private final Map<Key, Pending> pending = new LinkedHashMap<>();

    public void add(TcpPacket packet) {
        Pending p = pending.computeIfAbsent(Key.of(packet.source(), packet.destination()),
                k -> new Pending(packet.frame()));
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

    public List<Connection> connections() {
        List<Connection> out = new ArrayList<>();
        for (Pending p : pending.values()) {
            out.add(new Connection(p.firstFrame, ByteStream.assemble(p.client, p.server, p.fromClient),
                    ByteStream.assemble(Objects.requireNonNull(p.server), p.client, p.fromServer), p.synSeen));
        }
        return out;
    }
}
