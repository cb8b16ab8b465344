package org.iwarp4j.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;

/**
 * Test helper: the ONC RPC messages Linux sent in RPC-over-RDMA Sends in a capture, dug out layer
 * by layer (MPA startup frame, FPDUs without markers, DDP untagged Send segments on queue 0
 * reassembled by MSN and MO, the RPC-over-RDMA header) so that the NFS decoders can be checked
 * against real bytes; with each message, the data its chunks moved by RDMA, found from the
 * tagged DDP segments of the same connection. Every direction is read whole: a capture that lost
 * a segment is refused ({@link TcpDirection#stream()}).
 *
 * @param connection index of the TCP connection in the capture
 * @param fromClient whether the client (requester) sent it
 * @param xid the RPC-over-RDMA rdma_xid
 * @param proc rdma_proc (0 = RDMA_MSG)
 * @param readChunkPositions Positions of the Read list's segments
 * @param writeChunkLengths per Write chunk, the sum of its segment lengths
 * @param replyChunk whether a Reply chunk is present
 * @param rpc the RPC message from the xid on: the Payload stream, reduced if chunks were used; for
 *     a reply sent as RDMA_NOMSG, what the server wrote into the Reply chunk
 * @param chunkData the reduced data items, in order: for a call, each Read chunk's data as the
 *     server pulled it (RDMA Read Request naming the chunk's segment, then the Read Responses into
 *     the server's sink buffer); for a reply, each Write chunk's data as the server pushed it (RDMA
 *     Writes into the segments the reply's Write list names, for the lengths it reports)
 */
public record CapturedRpc(int connection, boolean fromClient, int xid, int proc, List<Integer> readChunkPositions,
                   List<Long> writeChunkLengths, boolean replyChunk, byte[] rpc, List<byte[]> chunkData) {

    private static final int DDP_TAGGED_HEADER = 14; // RFC 5041 §4.2 with RFC 5040's RDMAP control octet
    private static final int DDP_UNTAGGED_HEADER = 18; // RFC 5041 §4.3

    public int msgType() {
        return ByteBuffer.wrap(rpc).getInt(4);
    }

    public boolean isCall() {
        return msgType() == 0;
    }

    /** For a call: program, version, procedure. */
    public int[] callProcedure() {
        ByteBuffer b = ByteBuffer.wrap(rpc);
        return new int[] {b.getInt(12), b.getInt(16), b.getInt(20)};
    }

    /** The call's arguments or the accepted reply's results, as a buffer the caller releases. */
    public ByteBuf body() {
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

    /** The chunk data as the reduced items of an XDR decoder (RFC 8166 §3.4.6), unreleased wrappers. */
    public List<ByteBuf> reducedItems() {
        return chunkData.stream().map(Unpooled::wrappedBuffer).toList();
    }

    /** The accept_stat of an accepted reply. */
    int acceptStat() {
        ByteBuffer b = ByteBuffer.wrap(rpc);
        return b.getInt(20 + pad(b.getInt(16)));
    }

    private static int pad(int n) {
        return (n + 3) & ~3;
    }

    public static List<CapturedRpc> read(Path pcap) throws Exception {
        List<CapturedRpc> out = new ArrayList<>();
        List<TcpConnection> connections = PcapReader.read(pcap).connections();
        for (int c = 0; c < connections.size(); c++) {
            TcpConnection conn = connections.get(c);
            Direction client = Direction.of(conn.clientToServer());
            Direction server = Direction.of(conn.serverToClient());
            for (byte[] send : client.sends) {
                out.add(parseTransportHeader(c, true, send, client, server));
            }
            for (byte[] send : server.sends) {
                out.add(parseTransportHeader(c, false, send, client, server));
            }
        }
        return out;
    }

    /** One direction's DDP traffic: whole Sends, tagged data by STag and TO, RDMA Read Requests. */
    private static final class Direction {
        final List<byte[]> sends = new ArrayList<>();
        final Map<Integer, TreeMap<Long, byte[]>> tagged = new HashMap<>();
        /** Read Requests (RFC 5040 §4.4): sink STag, sink TO, size, source STag, source TO. */
        final List<long[]> readRequests = new ArrayList<>();

        static Direction of(TcpDirection tcp) {
            Direction d = new Direction();
            ByteBuffer s = ByteBuffer.wrap(tcp.stream());
            s.position(20 + (s.getShort(18) & 0xFFFF)); // MPA Request or Reply frame and its private data
            Map<Integer, ByteArrayOutputStream> partial = new LinkedHashMap<>();
            while (s.remaining() >= 2) {
                int length = s.getShort(s.position()) & 0xFFFF;
                int fpdu = 2 + length + (-(2 + length) & 3) + 4;
                if (s.remaining() < fpdu) {
                    throw new IllegalStateException("stream ends inside an FPDU");
                }
                byte[] ulpdu = new byte[length];
                s.get(s.position() + 2, ulpdu);
                s.position(s.position() + fpdu);
                ByteBuffer u = ByteBuffer.wrap(ulpdu);
                boolean last = (ulpdu[0] & 0x40) != 0;
                int opcode = ulpdu[1] & 0x0F;
                if ((ulpdu[0] & 0x80) != 0) { // RDMA Write or Read Response: placed at STag + TO
                    byte[] data = new byte[length - DDP_TAGGED_HEADER];
                    u.get(DDP_TAGGED_HEADER, data);
                    d.tagged.computeIfAbsent(u.getInt(2), k -> new TreeMap<>()).put(u.getLong(6), data);
                    continue;
                }
                int queue = u.getInt(6);
                if (queue == 1 && opcode == 1) {
                    ByteBuffer r = ByteBuffer.wrap(ulpdu, DDP_UNTAGGED_HEADER, 28).slice();
                    d.readRequests.add(new long[] {r.getInt(0), r.getLong(4), r.getInt(12) & 0xFFFF_FFFFL,
                            r.getInt(16), r.getLong(20)});
                    continue;
                }
                if (queue != 0 || opcode < 3 || opcode > 6) {
                    continue; // Terminate or other queues: not a Send
                }
                int msn = u.getInt(10);
                ByteArrayOutputStream message = partial.computeIfAbsent(msn, k -> new ByteArrayOutputStream());
                if (message.size() != u.getInt(14)) {
                    throw new IllegalStateException("Send segments out of order at MSN " + msn);
                }
                message.write(ulpdu, DDP_UNTAGGED_HEADER, ulpdu.length - DDP_UNTAGGED_HEADER);
                if (last) {
                    d.sends.add(partial.remove(msn).toByteArray());
                }
            }
            return d;
        }

        /** {@code length} octets placed at {@code stag} from {@code to} on, joined from its tagged segments. */
        byte[] placed(int stag, long to, long length) {
            TreeMap<Long, byte[]> pieces = tagged.getOrDefault(stag, new TreeMap<>());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long at = to;
            while (out.size() < length) {
                byte[] piece = pieces.get(at);
                if (piece == null) {
                    throw new IllegalStateException(String.format("nothing placed at STag %08x TO %x", stag, at));
                }
                out.write(piece, 0, (int) Math.min(piece.length, length - out.size()));
                at += piece.length;
            }
            return out.toByteArray();
        }
    }

    private static CapturedRpc parseTransportHeader(int connection, boolean fromClient, byte[] send,
                                                    Direction client, Direction server) {
        ByteBuffer h = ByteBuffer.wrap(send);
        int xid = h.getInt();
        h.getInt(); // rdma_vers
        h.getInt(); // rdma_credit
        int proc = h.getInt();
        List<Integer> positions = new ArrayList<>();
        List<Long> writeChunks = new ArrayList<>();
        List<byte[]> chunkData = new ArrayList<>();
        boolean replyChunk = false;
        ByteArrayOutputStream replyChunkData = new ByteArrayOutputStream();
        if (proc == 0 || proc == 1) {
            Map<Integer, ByteArrayOutputStream> readChunks = new LinkedHashMap<>();
            while (h.getInt() == 1) {
                int position = h.getInt();
                positions.add(position);
                int handle = h.getInt();
                long length = h.getInt() & 0xFFFF_FFFFL;
                long offset = h.getLong();
                if (fromClient) {
                    readChunks.computeIfAbsent(position, k -> new ByteArrayOutputStream())
                            .writeBytes(pulled(client, server, handle, offset, length));
                }
            }
            readChunks.values().forEach(b -> chunkData.add(b.toByteArray()));
            while (h.getInt() == 1) {
                ByteArrayOutputStream written = new ByteArrayOutputStream();
                long total = 0;
                int n = h.getInt();
                for (int i = 0; i < n; i++) {
                    int handle = h.getInt();
                    long length = h.getInt() & 0xFFFF_FFFFL;
                    long offset = h.getLong();
                    total += length;
                    if (!fromClient) {
                        written.writeBytes(server.placed(handle, offset, length));
                    }
                }
                writeChunks.add(total);
                if (!fromClient) {
                    chunkData.add(written.toByteArray());
                }
            }
            if (h.getInt() == 1) {
                replyChunk = true;
                int n = h.getInt();
                for (int i = 0; i < n; i++) {
                    int handle = h.getInt();
                    long length = h.getInt() & 0xFFFF_FFFFL;
                    long offset = h.getLong();
                    if (!fromClient && proc == 1) {
                        replyChunkData.writeBytes(server.placed(handle, offset, length));
                    }
                }
            }
        }
        byte[] rpc = new byte[h.remaining()];
        h.get(rpc);
        if (proc == 1 && !fromClient) {
            // RDMA_NOMSG (RFC 8166 §3.5.3): the whole reply went to the Reply chunk, its length per segment.
            rpc = replyChunkData.toByteArray();
        }
        return new CapturedRpc(connection, fromClient, xid, proc, positions, writeChunks, replyChunk, rpc,
                List.copyOf(chunkData));
    }

    /** The octets the server read from the client's segment: its Read Request for it, then the Read Responses. */
    private static byte[] pulled(Direction client, Direction server, int handle, long offset, long length) {
        for (long[] rr : server.readRequests) {
            if ((int) rr[3] == handle && rr[4] == offset) {
                if (rr[2] != length) {
                    throw new IllegalStateException("Read Request of " + rr[2] + " octets for a " + length
                            + "-octet segment");
                }
                return client.placed((int) rr[0], rr[1], rr[2]);
            }
        }
        throw new IllegalStateException(String.format("no RDMA Read Request for STag %08x TO %x", handle, offset));
    }
}
