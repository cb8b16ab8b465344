package org.iwarp4j.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sorts TCP packets into connections by their endpoint pair, in order of first appearance (which is
 * tshark's {@code tcp.stream} numbering), and decides which side is the client.
 *
 * <p>A new SYN with a different initial sequence number on an endpoint pair that already has a
 * handshake starts a new connection, as happens when a client port is reused.
 */
final class TcpConnectionAssembler {

    private final List<Builder> builders = new ArrayList<>();
    private final Map<Set<TcpEndpoint>, Builder> current = new HashMap<>();

    void add(TcpPacket packet) {
        // Set.copyOf rather than Set.of: a self-connection has the same endpoint twice.
        Set<TcpEndpoint> endpoints = Set.copyOf(List.of(packet.source(), packet.destination()));
        Builder builder = current.get(endpoints);
        if (builder == null || builder.isOtherConnection(packet)) {
            builder = new Builder(packet);
            builders.add(builder);
            current.put(endpoints, builder);
        }
        builder.add(packet);
    }

    List<TcpConnection> assemble() {
        return builders.stream().map(Builder::build).toList();
    }

    /** Collects one connection's packets until it is known which side is the client. */
    private static final class Builder {

        private final TcpDirectionAssembler firstSender;
        private final TcpDirectionAssembler firstReceiver;
        private TcpDirectionAssembler client; // null until a SYN or SYN-ACK shows it
        private boolean openingSynCaptured;

        Builder(TcpPacket first) {
            firstSender = new TcpDirectionAssembler(first.source(), first.destination());
            firstReceiver = new TcpDirectionAssembler(first.destination(), first.source());
        }

        /** An opening SYN that is not a retransmission of this connection's own. */
        boolean isOtherConnection(TcpPacket packet) {
            return isOpeningSyn(packet) && openingSynCaptured
                    && !(client == from(packet) && client.initialSequence() == packet.sequence());
        }

        void add(TcpPacket packet) {
            TcpDirectionAssembler sender = from(packet);
            if (isOpeningSyn(packet)) {
                client = sender;
                openingSynCaptured = true;
            } else if (client == null && packet.has(TcpPacket.SYN)) { // SYN-ACK: the sender is the server
                client = other(sender);
            }
            sender.add(packet);
        }

        TcpConnection build() {
            TcpDirectionAssembler clientSide = client == null ? firstSender : client;
            return new TcpConnection(clientSide.assemble(), other(clientSide).assemble(), openingSynCaptured);
        }

        private TcpDirectionAssembler from(TcpPacket packet) {
            return packet.source().equals(firstSender.source()) ? firstSender : firstReceiver;
        }

        private TcpDirectionAssembler other(TcpDirectionAssembler side) {
            return side == firstSender ? firstReceiver : firstSender;
        }

        private static boolean isOpeningSyn(TcpPacket packet) {
            return packet.has(TcpPacket.SYN) && !packet.has(TcpPacket.ACK);
        }
    }
}
