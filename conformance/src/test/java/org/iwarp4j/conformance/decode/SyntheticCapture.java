package org.iwarp4j.conformance.decode;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes captures for tests: IPv4/TCP connections with a SYN handshake, one frame per segment, as
 * classic pcap (Ethernet or Linux cooked SLL) or pcapng. Frames stay in a list until written, so a
 * test can drop, repeat or reorder them.
 */
final class SyntheticCapture {

    /** One TCP segment: which connection, from which side, its sequence number, flags and payload. */
    record Segment(int clientPort, int serverPort, boolean fromClient, long sequence, int flags, int mss,
                   byte[] payload) {
    }

    static final int FIN = 0x01;
    static final int SYN = 0x02;
    static final int ACK = 0x10;
    static final int PSH = 0x08;

    final List<Segment> segments = new ArrayList<>();

    /** A connection: the handshake is added at once; data follows with {@link Conn#send}. */
    Conn connect(int clientPort, int serverPort) {
        Conn c = new Conn(clientPort, serverPort);
        segments.add(new Segment(clientPort, serverPort, true, c.clientSeq - 1, SYN, 1460, new byte[0]));
        segments.add(new Segment(clientPort, serverPort, false, c.serverSeq - 1, SYN | ACK, 1460, new byte[0]));
        return c;
    }

    final class Conn {
        final int clientPort;
        final int serverPort;
        long clientSeq = 1000;
        long serverSeq = 0xfffff000L; // wraps past 2^32 during a test that sends 4 KiB or more

        Conn(int clientPort, int serverPort) {
            this.clientPort = clientPort;
            this.serverPort = serverPort;
        }

        /** Adds one segment with {@code data} and returns it. */
        Segment send(boolean fromClient, byte[] data) {
            long seq = fromClient ? clientSeq : serverSeq;
            Segment s = new Segment(clientPort, serverPort, fromClient, seq & 0xffffffffL, ACK | PSH, -1, data);
            if (fromClient) {
                clientSeq += data.length;
            } else {
                serverSeq += data.length;
            }
            segments.add(s);
            return s;
        }

        /** Sends {@code data} cut into segments of at most {@code mss} octets. */
        List<Segment> sendSegmented(boolean fromClient, byte[] data, int mss) {
            List<Segment> out = new ArrayList<>();
            for (int i = 0; i < data.length; i += mss) {
                byte[] part = java.util.Arrays.copyOfRange(data, i, Math.min(data.length, i + mss));
                out.add(send(fromClient, part));
            }
            return out;
        }
    }

    private static byte[] ipPacket(Segment s) {
        int tcpHeader = s.mss() > 0 ? 24 : 20;
        ByteBuffer b = ByteBuffer.allocate(20 + tcpHeader + s.payload().length);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putShort((short) 0).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 6).putShort((short) 0);
        byte[] client = {10, 0, 0, 1};
        byte[] server = {10, 0, 0, 2};
        b.put(s.fromClient() ? client : server).put(s.fromClient() ? server : client);
        b.putShort((short) (s.fromClient() ? s.clientPort() : s.serverPort()))
                .putShort((short) (s.fromClient() ? s.serverPort() : s.clientPort()))
                .putInt((int) s.sequence()).putInt(0)
                .put((byte) ((tcpHeader / 4) << 4)).put((byte) s.flags()).putShort((short) 65535)
                .putShort((short) 0).putShort((short) 0);
        if (s.mss() > 0) {
            b.put((byte) 2).put((byte) 4).putShort((short) s.mss());
        }
        b.put(s.payload());
        return b.array();
    }

    private static byte[] ethernet(byte[] ip) {
        ByteBuffer b = ByteBuffer.allocate(14 + ip.length);
        b.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) 0x0800).put(ip);
        return b.array();
    }

    private static byte[] sll(byte[] ip) {
        ByteBuffer b = ByteBuffer.allocate(16 + ip.length);
        b.putShort((short) 0).putShort((short) 772).putShort((short) 6).put(new byte[8]).putShort((short) 0x0800).put(ip);
        return b.array();
    }

    /** BSD loopback (link type 0): the address family in the capturing host's order (AF_INET 2, little-endian). */
    private static byte[] loopback(byte[] ip) {
        return ByteBuffer.allocate(4 + ip.length).order(ByteOrder.LITTLE_ENDIAN).putInt(2).put(ip).array();
    }

    /** Classic pcap, little-endian, microseconds, Ethernet (1) or Linux SLL (113). */
    byte[] pcap(boolean linuxCooked) {
        return pcap(linuxCooked ? 113 : 1);
    }

    /** Classic pcap with link type 1 (Ethernet), 113 (Linux SLL) or 0 (BSD loopback). */
    byte[] pcap(int linkType) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144)
                .putInt(linkType);
        out.writeBytes(h.array());
        int i = 0;
        for (Segment s : segments) {
            byte[] ip = ipPacket(s);
            byte[] frame = linkType == 113 ? sll(ip) : linkType == 0 ? loopback(ip) : ethernet(ip);
            ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            r.putInt(1_700_000_000).putInt(i++).putInt(frame.length).putInt(frame.length);
            out.writeBytes(r.array());
            out.writeBytes(frame);
        }
        return out.toByteArray();
    }

    /** pcapng, big-endian blocks: section header, one Ethernet interface, enhanced packet blocks. */
    byte[] pcapng() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer shb = ByteBuffer.allocate(28);
        shb.putInt(0x0a0d0d0a).putInt(28).putInt(0x1a2b3c4d).putShort((short) 1).putShort((short) 0).putLong(-1)
                .putInt(28);
        out.writeBytes(shb.array());
        ByteBuffer idb = ByteBuffer.allocate(20);
        idb.putInt(1).putInt(20).putShort((short) 1).putShort((short) 0).putInt(262144).putInt(20);
        out.writeBytes(idb.array());
        long micros = 1_700_000_000_000_000L;
        for (Segment s : segments) {
            byte[] frame = ethernet(ipPacket(s));
            int padded = (frame.length + 3) & ~3;
            int length = 32 + padded;
            ByteBuffer epb = ByteBuffer.allocate(length);
            epb.putInt(6).putInt(length).putInt(0).putInt((int) (micros >>> 32)).putInt((int) micros)
                    .putInt(frame.length).putInt(frame.length).put(frame).position(28 + padded);
            epb.putInt(length);
            out.writeBytes(epb.array());
            micros++;
        }
        return out.toByteArray();
    }
}
