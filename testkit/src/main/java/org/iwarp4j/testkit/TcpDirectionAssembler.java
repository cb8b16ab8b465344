package org.iwarp4j.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;

/**
 * Turns the packets one side sent, in capture order, into a {@link TcpDirection}: sequence numbers
 * made relative, segments sorted into sequence order, bytes already seen dropped, holes recorded.
 */
final class TcpDirectionAssembler {

    private static final long SEQUENCE_SPACE = 1L << 32;

    private final TcpEndpoint source;
    private final TcpEndpoint destination;
    private final List<TcpPacket> packets = new ArrayList<>();
    private long initialSequence = -1;
    private int announcedMss = -1;

    TcpDirectionAssembler(TcpEndpoint source, TcpEndpoint destination) {
        this.source = source;
        this.destination = destination;
    }

    void add(TcpPacket packet) {
        if (packet.has(TcpPacket.SYN) && initialSequence < 0) {
            initialSequence = packet.sequence();
            announcedMss = packet.mss();
        }
        if (packet.payload().length > 0) {
            packets.add(packet);
        }
    }

    TcpEndpoint source() {
        return source;
    }

    boolean synCaptured() {
        return initialSequence >= 0;
    }

    long initialSequence() {
        return initialSequence;
    }

    TcpDirection assemble() {
        // Offsets count from the first data byte. Without a SYN that is the lowest sequence number
        // captured; differences are taken modulo 2^32, so sequence numbers may wrap.
        long firstByte = synCaptured() ? (initialSequence + 1) % SEQUENCE_SPACE : lowestPayloadSequence();
        long relativeToOffset = synCaptured() ? 1 : 0;

        List<TcpPacket> inSequenceOrder = new ArrayList<>(packets);
        inSequenceOrder.sort(Comparator.comparingLong((TcpPacket p) -> offset(p, firstByte))
                .thenComparingInt(TcpPacket::frameNumber));

        List<TcpSegment> segments = new ArrayList<>();
        List<SequenceGap> gaps = new ArrayList<>();
        int retransmitted = 0;
        long covered = 0;
        for (TcpPacket packet : inSequenceOrder) {
            long offset = offset(packet, firstByte);
            byte[] payload = packet.payload();
            long end = offset + payload.length;
            if (end <= covered) {
                retransmitted++;
                continue;
            }
            if (offset < covered) {
                retransmitted++;
                payload = Arrays.copyOfRange(payload, (int) (covered - offset), payload.length);
                offset = covered;
            } else if (offset > covered) {
                gaps.add(new SequenceGap(covered, offset - covered));
            }
            segments.add(new TcpSegment(packet.frameNumber(), packet.timestamp(), offset + relativeToOffset,
                    offset, payload));
            covered = end;
        }
        return new TcpDirection(source, destination, segments, gaps, retransmitted,
                announcedMss < 0 ? OptionalInt.empty() : OptionalInt.of(announcedMss));
    }

    private long lowestPayloadSequence() {
        if (packets.isEmpty()) {
            return 0;
        }
        long reference = packets.get(0).payloadSequence();
        long lowest = reference;
        int lowestDistance = 0;
        for (TcpPacket packet : packets) {
            int distance = (int) (packet.payloadSequence() - reference); // signed: earlier is negative
            if (distance < lowestDistance) {
                lowestDistance = distance;
                lowest = packet.payloadSequence();
            }
        }
        return lowest;
    }

    private static long offset(TcpPacket packet, long firstByte) {
        return Math.floorMod(packet.payloadSequence() - firstByte, SEQUENCE_SPACE);
    }
}
