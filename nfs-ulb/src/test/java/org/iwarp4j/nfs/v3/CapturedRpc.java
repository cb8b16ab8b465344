package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;

/**
 * Test helper: the ONC RPC messages Linux sent in RPC-over-RDMA Sends in a capture, dug out layer
 * by layer (MPA startup frame, FPDUs without markers, DDP untagged Send segments on queue 0
 * reassembled by MSN and MO, the RPC-over-RDMA header) so that the NFS decoders can be checked
 * against real bytes. Only the part of each direction before the first lost segment is used.
 *
 * @param connection index of the TCP connection in the capture
 * @param fromClient whether the client (requester) sent it
 * @param xid the RPC-over-RDMA rdma_xid
 * @param proc rdma_proc (0 = RDMA_MSG)
 * @param readChunkPositions Positions of the Read list's segments
 * @param writeChunkLengths per Write chunk, the sum of its segment lengths
 * @param replyChunk whether a Reply chunk is present
 * @param rpc the RPC message from the xid on (the Payload stream, reduced if chunks were used)
 */
record CapturedRpc(int connection, boolean fromClient, int xid, int proc, List<Integer> readChunkPositions,
                   List<Long> writeChunkLengths, boolean replyChunk, byte[] rpc) {

    int msgType() {
        return ByteBuffer.wrap(rpc).getInt(4);
    }

    boolean isCall() {
        return msgType() == 0;
    }

    /** For a call: program, version, procedure. */
    int[] callProcedure() {
        ByteBuffer b = ByteBuffer.wrap(rpc);
        return new int[] {b.getInt(12), b.getInt(16), b.getInt(20)};
    }

    /** The call's arguments or the accepted reply's results, as a buffer the caller releases. */
    ByteBuf body() {
        ByteBuffer b = ByteBuffer.wrap(rpc);
        int offset;
        if (isCall()) {
            int credLength = b.getInt(28);
            int verf = 32 + pad(credLength);
            offset = verf + 8 + pad(b.getInt(verf + 4));
        } else {
            int verfLength = b.getInt(16);
            offset = 20 + pad(verfLength) + 4; // accept_stat
        }
        return Unpooled.wrappedBuffer(rpc, offset, rpc.length - offset);
    }

    /** The accept_stat of an accepted reply. */
    int acceptStat() {
        ByteBuffer b = ByteBuffer.wrap(rpc);
        return b.getInt(20 + pad(b.getInt(16)));
    }

    private static int pad(int n) {
        return (n + 3) & ~3;
    }

    static List<CapturedRpc> read(Path pcap) throws Exception {
        List<CapturedRpc> out = new ArrayList<>();
        List<TcpConnection> connections = PcapReader.read(pcap).connections();
        for (int c = 0; c < connections.size(); c++) {
            TcpConnection conn = connections.get(c);
            out.addAll(fromDirection(c, true, conn.clientToServer()));
            out.addAll(fromDirection(c, false, conn.serverToClient()));
        }
        return out;
    }

    private static List<CapturedRpc> fromDirection(int connection, boolean fromClient, TcpDirection direction) {
        ByteBuffer s = ByteBuffer.wrap(direction.streamBeforeFirstGap());
        List<CapturedRpc> out = new ArrayList<>();
        if (s.remaining() < 20) {
            return out;
        }
        s.position(20 + (s.getShort(18) & 0xFFFF)); // MPA Request or Reply frame and its private data
        Map<Integer, ByteArrayOutputStream> partial = new HashMap<>();
        while (s.remaining() >= 2) {
            int length = s.getShort(s.position()) & 0xFFFF;
            int fpdu = 2 + length + (-(2 + length) & 3) + 4;
            if (s.remaining() < fpdu) {
                break;
            }
            byte[] ulpdu = new byte[length];
            s.get(s.position() + 2, ulpdu);
            s.position(s.position() + fpdu);
            ByteBuffer d = ByteBuffer.wrap(ulpdu);
            boolean tagged = (ulpdu[0] & 0x80) != 0;
            boolean last = (ulpdu[0] & 0x40) != 0;
            int opcode = ulpdu[1] & 0x0F;
            if (tagged || opcode < 3 || opcode > 6 || d.getInt(6) != 0) {
                continue; // RDMA Write / Read Response / Read Request / Terminate: not a Send
            }
            int msn = d.getInt(10);
            ByteArrayOutputStream message = partial.computeIfAbsent(msn, k -> new ByteArrayOutputStream());
            if (message.size() != d.getInt(14)) {
                throw new IllegalStateException("Send segments out of order at MSN " + msn);
            }
            message.write(ulpdu, 18, ulpdu.length - 18);
            if (last) {
                out.add(parseTransportHeader(connection, fromClient, partial.remove(msn).toByteArray()));
            }
        }
        return out;
    }

    private static CapturedRpc parseTransportHeader(int connection, boolean fromClient, byte[] send) {
        ByteBuffer h = ByteBuffer.wrap(send);
        int xid = h.getInt();
        h.getInt(); // rdma_vers
        h.getInt(); // rdma_credit
        int proc = h.getInt();
        List<Integer> positions = new ArrayList<>();
        List<Long> writeChunks = new ArrayList<>();
        boolean replyChunk = false;
        if (proc == 0 || proc == 1) {
            while (h.getInt() == 1) {
                positions.add(h.getInt());
                h.position(h.position() + 16);
            }
            while (h.getInt() == 1) {
                writeChunks.add(segments(h));
            }
            if (h.getInt() == 1) {
                replyChunk = true;
                segments(h);
            }
        }
        byte[] rpc = new byte[h.remaining()];
        h.get(rpc);
        return new CapturedRpc(connection, fromClient, xid, proc, positions, writeChunks, replyChunk, rpc);
    }

    private static long segments(ByteBuffer h) {
        int n = h.getInt();
        long total = 0;
        for (int i = 0; i < n; i++) {
            h.getInt();
            total += h.getInt() & 0xFFFF_FFFFL;
            h.getLong();
        }
        return total;
    }
}
