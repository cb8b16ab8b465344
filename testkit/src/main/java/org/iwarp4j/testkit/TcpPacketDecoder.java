package org.iwarp4j.testkit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * Finds the TCP segment in a captured frame: link layer, then IPv4 or IPv6, then TCP.
 *
 * <p>Link types: Ethernet (1, with 802.1Q/802.1ad tags), raw IP (101, 228, 229), Linux cooked
 * capture SLL (113) and SLL2 (276). Frames that are not TCP, IP fragments, and frames cut short
 * inside the headers are skipped: they carry no usable TCP payload.
 */
final class TcpPacketDecoder {

    static final int LINKTYPE_ETHERNET = 1;
    static final int LINKTYPE_RAW = 101;
    static final int LINKTYPE_LINUX_SLL = 113;
    static final int LINKTYPE_IPV4 = 228;
    static final int LINKTYPE_IPV6 = 229;
    static final int LINKTYPE_LINUX_SLL2 = 276;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;
    private static final int PROTOCOL_TCP = 6;

    private TcpPacketDecoder() {
    }

    static boolean supports(int linkType) {
        return switch (linkType) {
            case LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_LINUX_SLL, LINKTYPE_IPV4, LINKTYPE_IPV6,
                    LINKTYPE_LINUX_SLL2 -> true;
            default -> false;
        };
    }

    static Optional<TcpPacket> decode(int linkType, CapturedFrame frame) {
        ByteBuffer data = frame.data().duplicate();
        try {
            return switch (linkType) {
                case LINKTYPE_ETHERNET -> ethernet(frame, data);
                case LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6 -> ip(frame, data);
                case LINKTYPE_LINUX_SLL -> byEtherType(frame, data.position(14).getShort() & 0xffff, data);
                case LINKTYPE_LINUX_SLL2 -> byEtherType(frame, data.getShort(0) & 0xffff, data.position(20));
                default -> throw new IllegalStateException("unsupported link type " + linkType);
            };
        } catch (IndexOutOfBoundsException | BufferUnderflowException | IllegalArgumentException cutShort) {
            // Buffer positions past the captured bytes: the frame ends inside a header.
            return Optional.empty();
        }
    }

    private static Optional<TcpPacket> ethernet(CapturedFrame frame, ByteBuffer data) {
        data.position(12);
        int etherType = data.getShort() & 0xffff;
        while (etherType == 0x8100 || etherType == 0x88a8 || etherType == 0x9100) {
            data.getShort(); // VLAN tag control information
            etherType = data.getShort() & 0xffff;
        }
        return byEtherType(frame, etherType, data);
    }

    private static Optional<TcpPacket> byEtherType(CapturedFrame frame, int etherType, ByteBuffer data) {
        return switch (etherType) {
            case ETHERTYPE_IPV4, ETHERTYPE_IPV6 -> ip(frame, data);
            default -> Optional.empty();
        };
    }

    private static Optional<TcpPacket> ip(CapturedFrame frame, ByteBuffer data) {
        int version = (data.get(data.position()) & 0xff) >>> 4;
        return switch (version) {
            case 4 -> ipv4(frame, data);
            case 6 -> ipv6(frame, data);
            default -> Optional.empty();
        };
    }

    private static Optional<TcpPacket> ipv4(CapturedFrame frame, ByteBuffer data) {
        int start = data.position();
        int headerLength = (data.get(start) & 0x0f) * 4;
        int totalLength = data.getShort(start + 2) & 0xffff;
        int fragment = data.getShort(start + 6) & 0x3fff; // more-fragments flag and offset
        int protocol = data.get(start + 9) & 0xff;
        if (fragment != 0 || protocol != PROTOCOL_TCP) {
            return Optional.empty();
        }
        InetAddress source = address(data, start + 12, 4);
        InetAddress destination = address(data, start + 16, 4);
        // Total length 0 appears in captures of TCP segmentation offload; the frame is then the packet.
        // Otherwise it bounds the packet, which drops Ethernet padding and trailers.
        int end = totalLength == 0 ? data.limit() : Math.min(data.limit(), start + totalLength);
        return tcp(frame, source, destination, data.limit(end).position(start + headerLength));
    }

    private static Optional<TcpPacket> ipv6(CapturedFrame frame, ByteBuffer data) {
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
                default -> { // fragment (44), no next header (59), anything else
                    return Optional.empty();
                }
            }
        }
        return tcp(frame, source, destination, data.limit(end).position(offset));
    }

    private static Optional<TcpPacket> tcp(CapturedFrame frame, InetAddress sourceAddress,
            InetAddress destinationAddress, ByteBuffer segment) {
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
        return Optional.of(new TcpPacket(frame.number(), frame.timestamp(),
                new TcpEndpoint(sourceAddress, sourcePort), new TcpEndpoint(destinationAddress, destinationPort),
                sequence, flags, mss, payload));
    }

    private static int maximumSegmentSize(ByteBuffer segment, int optionsStart, int optionsEnd) {
        int offset = optionsStart;
        while (offset < optionsEnd) {
            int kind = segment.get(offset) & 0xff;
            if (kind == 0) { // end of options
                break;
            }
            if (kind == 1) { // no-operation
                offset++;
                continue;
            }
            int length = offset + 1 < optionsEnd ? segment.get(offset + 1) & 0xff : 0;
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
            throw new AssertionError("address of length " + length, impossible);
        }
    }
}
