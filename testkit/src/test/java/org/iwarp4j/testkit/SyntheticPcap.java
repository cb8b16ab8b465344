package org.iwarp4j.testkit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes small pcap files for the cases the real captures do not contain: retransmissions, reordering,
 * other link types, byte orders and timestamp resolutions. Frame {@code n} (1-based) is stamped
 * {@code n} milliseconds plus {@code n} nanoseconds after the epoch, so a test can tell whether
 * nanoseconds survived.
 */
final class SyntheticPcap {

    static final int FIN = 0x01;
    static final int SYN = 0x02;
    static final int PSH = 0x08;
    static final int ACK = 0x10;

    private final boolean nanoseconds;
    private final int linkType;
    private final ByteBuffer out = ByteBuffer.allocate(1 << 20);
    private int frames;

    SyntheticPcap(int linkType) {
        this(ByteOrder.LITTLE_ENDIAN, false, linkType);
    }

    SyntheticPcap(ByteOrder order, boolean nanoseconds, int linkType) {
        this.nanoseconds = nanoseconds;
        this.linkType = linkType;
        out.order(order);
        out.putInt(nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4).putShort((short) 2).putShort((short) 4)
                .putInt(0).putInt(0).putInt(262144).putInt(linkType);
    }

    /** Adds a TCP segment; a SYN gets an MSS option of 1460. */
    SyntheticPcap tcp(String source, int sourcePort, String destination, int destinationPort,
            long sequence, int flags, byte[] payload) {
        return frame(link(ip(source, destination, tcpSegment(sourcePort, destinationPort, sequence, flags, payload))));
    }

    SyntheticPcap tcp(String source, int sourcePort, String destination, int destinationPort,
            long sequence, int flags, String payload) {
        return tcp(source, sourcePort, destination, destinationPort, sequence, flags,
                payload.getBytes(StandardCharsets.US_ASCII));
    }

    /** Adds a frame as it is. */
    SyntheticPcap frame(byte[] data) {
        return frame(data, data.length);
    }

    /** Adds a frame cut to {@code captured} bytes, as a snapshot length does. */
    SyntheticPcap frame(byte[] data, int captured) {
        frames++;
        long nanos = frames * 1_000_000L + frames;
        out.putInt(0).putInt((int) (nanoseconds ? nanos : nanos / 1000)).putInt(captured).putInt(data.length);
        out.put(data, 0, captured);
        return this;
    }

    byte[] bytes() {
        byte[] bytes = new byte[out.position()];
        out.duplicate().flip().get(bytes);
        return bytes;
    }

    PcapReader read() throws IOException {
        return PcapReader.read(new ByteArrayInputStream(bytes()));
    }

    byte[] link(byte[] packet) {
        boolean ipv6 = (packet[0] >>> 4) == 6;
        short etherType = (short) (ipv6 ? 0x86dd : 0x0800);
        ByteBuffer frame;
        switch (linkType) {
            case 1 -> { // Ethernet, padded to its 60-byte minimum like a real NIC does
                frame = ByteBuffer.allocate(Math.max(60, 14 + packet.length));
                frame.put(new byte[12]).putShort(etherType).put(packet);
            }
            case 113 -> { // Linux cooked: packet type, ARPHRD, address length, address, protocol
                frame = ByteBuffer.allocate(16 + packet.length);
                frame.putShort((short) 0).putShort((short) 772).putShort((short) 6).put(new byte[8])
                        .putShort(etherType).put(packet);
            }
            case 101 -> frame = ByteBuffer.wrap(packet.clone());
            default -> throw new IllegalArgumentException("link type " + linkType);
        }
        return frame.array();
    }

    static byte[] ip(String source, String destination, byte[] segment) {
        InetAddress from = address(source);
        InetAddress to = address(destination);
        if (from.getAddress().length == 16) {
            return ByteBuffer.allocate(40 + segment.length)
                    .putInt(0x60000000).putShort((short) segment.length).put((byte) 6).put((byte) 64)
                    .put(from.getAddress()).put(to.getAddress()).put(segment).array();
        }
        return ByteBuffer.allocate(20 + segment.length)
                .put((byte) 0x45).put((byte) 0).putShort((short) (20 + segment.length))
                .putShort((short) 0).putShort((short) 0x4000) // identification, don't fragment
                .put((byte) 64).put((byte) 6).putShort((short) 0)
                .put(from.getAddress()).put(to.getAddress()).put(segment).array();
    }

    static byte[] tcpSegment(int sourcePort, int destinationPort, long sequence, int flags, byte[] payload) {
        int headerLength = (flags & SYN) != 0 ? 24 : 20;
        ByteBuffer segment = ByteBuffer.allocate(headerLength + payload.length)
                .putShort((short) sourcePort).putShort((short) destinationPort)
                .putInt((int) sequence).putInt(0)
                .put((byte) ((headerLength / 4) << 4)).put((byte) flags).putShort((short) 65535)
                .putShort((short) 0).putShort((short) 0);
        if ((flags & SYN) != 0) {
            segment.put((byte) 2).put((byte) 4).putShort((short) 1460);
        }
        return segment.put(payload).array();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal); // literals only: no lookup happens
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
