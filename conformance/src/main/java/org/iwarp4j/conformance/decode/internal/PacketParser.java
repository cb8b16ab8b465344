package org.iwarp4j.conformance.decode.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * Finds the TCP segment in a captured frame: link layer, IPv4 or IPv6, TCP.
 *
 * <p>Link types: BSD loopback (0, family in the capturing host's byte order) and OpenBSD loopback
 * (108), Ethernet (1, with 802.1Q/802.1ad tags), raw IP (101, 228, 229), Linux cooked capture SLL
 * (113, what {@code tcpdump -i any} writes) and SLL2 (276). Frames that are not TCP, IP fragments,
 * frames cut short inside a header and headers whose length fields cannot be right carry no usable
 * segment and are skipped.
 */
public final class PacketParser {

    static final int LINKTYPE_NULL = 0;
    static final int LINKTYPE_ETHERNET = 1;
    static final int LINKTYPE_RAW = 101;
    static final int LINKTYPE_LOOP = 108;
    static final int LINKTYPE_LINUX_SLL = 113;
    static final int LINKTYPE_IPV4 = 228;
    static final int LINKTYPE_IPV6 = 229;
    static final int LINKTYPE_LINUX_SLL2 = 276;

    private static final int PROTOCOL_TCP = 6;

    private PacketParser() {
    }

    public static boolean supports(int linkType) {
        return switch (linkType) {
            case LINKTYPE_NULL, LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LOOP, LINKTYPE_LINUX_SLL, LINKTYPE_IPV4,
                    LINKTYPE_IPV6, LINKTYPE_LINUX_SLL2 -> true;
            default -> false;
        };
    }

    public static Optional<TcpPacket> parse(CaptureFile.Frame frame) {
        ByteBuffer data = frame.data().duplicate().order(ByteOrder.BIG_ENDIAN); // positions and limits are ours
        try {
            return switch (frame.linkType()) {
                // The loopback header is an address family, whose values differ between systems: look at
                // the IP version nibble instead.
                case LINKTYPE_NULL, LINKTYPE_LOOP -> ip(frame, data.position(4));
                case LINKTYPE_ETHERNET -> ethernet(frame, data);
                case LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6 -> ip(frame, data);
                case LINKTYPE_LINUX_SLL -> byEtherType(frame, data.getShort(14) & 0xffff, data.position(16));
                case LINKTYPE_LINUX_SLL2 -> byEtherType(frame, data.getShort(0) & 0xffff, data.position(20));
                default -> Optional.empty();
            };
        } catch (IndexOutOfBoundsException | BufferUnderflowException | IllegalArgumentException cutShort) {
            return Optional.empty();
        }
    }

    private static Optional<TcpPacket> ethernet(CaptureFile.Frame frame, ByteBuffer data) {
        data.position(12);
        int etherType = data.getShort() & 0xffff;
        while (etherType == 0x8100 || etherType == 0x88a8 || etherType == 0x9100) {
            data.getShort(); // VLAN tag control information
            etherType = data.getShort() & 0xffff;
        }
        return byEtherType(frame, etherType, data);
    }

    private static Optional<TcpPacket> byEtherType(CaptureFile.Frame frame, int etherType, ByteBuffer data) {
        return etherType == 0x0800 || etherType == 0x86dd ? ip(frame, data) : Optional.empty();
    }

    private static Optional<TcpPacket> ip(CaptureFile.Frame frame, ByteBuffer data) {
        int version = (data.get(data.position()) & 0xff) >>> 4;
        return version == 4 ? ipv4(frame, data) : version == 6 ? ipv6(frame, data) : Optional.empty();
    }

    private static Optional<TcpPacket> ipv4(CaptureFile.Frame frame, ByteBuffer data) {
        int start = data.position();
        int headerLength = (data.get(start) & 0x0f) * 4;
        int totalLength = data.getShort(start + 2) & 0xffff;
        int fragment = data.getShort(start + 6) & 0x3fff;
        int protocol = data.get(start + 9) & 0xff;
        // An IHL below 5 words cannot hold the IPv4 header itself (RFC 791 §3.1): the TCP header would
        // be read from inside it.
        if (headerLength < 20 || fragment != 0 || protocol != PROTOCOL_TCP) {
            return Optional.empty();
        }
        InetAddress source = address(data, start + 12, 4);
        InetAddress destination = address(data, start + 16, 4);
        // Total length 0: TCP segmentation offload captured before the NIC split the packet.
        int end = totalLength == 0 ? data.limit() : Math.min(data.limit(), start + totalLength);
        return tcp(frame, source, destination, data.limit(end).position(start + headerLength));
    }

    private static Optional<TcpPacket> ipv6(CaptureFile.Frame frame, ByteBuffer data) {
        int start = data.position();
        int payloadLength = data.getShort(start + 4) & 0xffff;
        int nextHeader = data.get(start + 6) & 0xff;
        InetAddress source = address(data, start + 8, 16);
        InetAddress destination = address(data, start + 24, 16);
        int end = payloadLength == 0 ? data.limit() : Math.min(data.limit(), start + 40 + payloadLength);
        int offset = start + 40;
        while (nextHeader != PROTOCOL_TCP) {
            switch (nextHeader) {
                case 0, 43, 60 -> { // hop-by-hop, routing, destination options
                    int length = ((data.get(offset + 1) & 0xff) + 1) * 8;
                    nextHeader = data.get(offset) & 0xff;
                    offset += length;
                }
                case 51 -> { // authentication header
                    int length = ((data.get(offset + 1) & 0xff) + 2) * 4;
                    nextHeader = data.get(offset) & 0xff;
                    offset += length;
                }
                default -> {
                    return Optional.empty();
                }
            }
        }
        return tcp(frame, source, destination, data.limit(end).position(offset));
    }

    private static Optional<TcpPacket> tcp(CaptureFile.Frame frame, InetAddress source, InetAddress destination,
            ByteBuffer segment) {
        int start = segment.position();
        int sourcePort = segment.getShort(start) & 0xffff;
        int destinationPort = segment.getShort(start + 2) & 0xffff;
        long sequence = segment.getInt(start + 4) & 0xffffffffL;
        int headerLength = ((segment.get(start + 12) & 0xff) >>> 4) * 4;
        int flags = segment.get(start + 13) & 0xff;
        if (headerLength < 20 || start + headerLength > segment.limit()) {
            return Optional.empty();
        }
        int mss = maximumSegmentSize(segment, start + 20, start + headerLength);
        byte[] payload = new byte[segment.limit() - start - headerLength];
        segment.get(start + headerLength, payload);
        return Optional.of(new TcpPacket(frame.number(), new InetSocketAddress(source, sourcePort),
                new InetSocketAddress(destination, destinationPort), sequence, flags, mss, payload));
    }

    private static int maximumSegmentSize(ByteBuffer segment, int from, int to) {
        int offset = from;
        while (offset < to) {
            int kind = segment.get(offset) & 0xff;
            if (kind == 0) {
                break;
            }
            if (kind == 1) {
                offset++;
                continue;
            }
            int length = offset + 1 < to ? segment.get(offset + 1) & 0xff : 0;
            if (length < 2) {
                break;
            }
            if (kind == 2 && length == 4) {
                return segment.getShort(offset + 2) & 0xffff;
            }
            offset += length;
        }
        return -1;
    }

    private static InetAddress address(ByteBuffer data, int offset, int length) {
        byte[] bytes = new byte[length];
        data.get(offset, bytes);
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
