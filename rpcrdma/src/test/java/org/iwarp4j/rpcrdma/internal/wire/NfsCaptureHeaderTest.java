package org.iwarp4j.rpcrdma.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.Test;

/**
 * Every RPC-over-RDMA message Linux xprtrdma and svcrdma sent in testdata/captures/nfs3-rdma-siw.pcap,
 * decoded with {@link RpcRdmaHeaderDecoder} and compared field by field with what tshark 4.0.17
 * shows. tshark's view is checked in as {@code nfs3-rdma-siw-rpcordma.psv} next to this class; its
 * first lines are the command that made it, so the test does not need tshark.
 *
 * <p>The capture is complete (no lost segment): each direction is read to its end, and every
 * message tshark shows must be found, in order, with the same fields, and nothing else. Sends are taken from the byte stream by hand (MPA without markers, CRC field present but zero,
 * DDP untagged QN 0, reassembled by MSN and MO) so that this test depends on no other module's
 * decoder.
 */
class NfsCaptureHeaderTest {

    private static final int MPA_KEY_LENGTH = 16;
    private static final int DDP_UNTAGGED_HEADER = 18;

    /** One row of the tshark table. */
    private record Row(int frame, int stream, int srcPort, long seq, long len, String fields) {
    }

    /** A decoded direction: the RFC 8797 block seen in its MPA frame and every header after it. */
    private record Direction(byte[] mpaPrivateData, List<RpcRdmaHeader> headers, long bytesRead, long streamLength) {
    }

    private static List<TcpConnection> connections() throws IOException {
        return PcapReader.read(TestData.capture("nfs3-rdma-siw.pcap")).connections();
    }

    @Test
    void everyMessageDecodesToTsharksFields() throws IOException { // RPC-R-036, RPC-R-039
        List<Row> rows = table();
        List<TcpConnection> connections = connections();
        assertThat(connections).hasSize(2);
        int compared = 0;
        for (int stream = 0; stream < connections.size(); stream++) {
            TcpConnection c = connections.get(stream);
            for (TcpDirection d : List.of(c.clientToServer(), c.serverToClient())) {
                Direction decoded = decode(d);
                int port = d.source().port();
                int s = stream;
                assertThat(decoded.bytesRead()).as("stream %d from port %d read to its end", stream, port)
                        .isEqualTo(decoded.streamLength());
                List<String> expected = rows.stream()
                        .filter(r -> r.stream() == s && r.srcPort() == port)
                        .map(Row::fields).collect(Collectors.toList());
                List<String> actual = decoded.headers().stream().map(NfsCaptureHeaderTest::fields)
                        .collect(Collectors.toList());
                assertThat(actual).as("stream %d from port %d", stream, port).isEqualTo(expected);
                compared += actual.size();
            }
        }
        // 15 calls and 15 replies on connection 0 (the copy), 16 and 16 on connection 1 (the read-back).
        assertThat(rows).hasSize(62);
        assertThat(compared).as("messages compared").isEqualTo(62);
    }

    @Test
    void theCaptureHoldsTheChunkShapesLinuxUses() throws IOException { // RPC-R-022, RPC-R-028, RPC-R-034, RPC-R-056
        List<TcpConnection> connections = connections();
        TcpConnection c0 = connections.get(0);
        List<RpcRdmaHeader> calls = decode(c0.clientToServer()).headers();
        List<RpcRdmaHeader> replies = decode(c0.serverToClient()).headers();
        // Frames 42 and 60: NFSv3 WRITEs of 262144 and 45056 octets, their data in a Read chunk at Position 120.
        for (int[] xidAndLength : new int[][] {{0xad37727f, 262144}, {0xae37727f, 45056}}) {
            RpcRdmaHeader.RdmaMsg write = (RpcRdmaHeader.RdmaMsg) calls.stream()
                    .filter(h -> h.xid() == xidAndLength[0]).findFirst().orElseThrow();
            assertThat(write.chunks().readChunks()).singleElement().satisfies(chunk -> {
                assertThat(chunk.position()).isEqualTo(120);
                assertThat(chunk.length()).isEqualTo(xidAndLength[1]);
            });
        }
        // Frame 35: GETACL's reply went through the Reply chunk as RDMA_NOMSG, 136 octets in segment 0.
        RpcRdmaHeader.RdmaNomsg longReply = (RpcRdmaHeader.RdmaNomsg) replies.stream()
                .filter(h -> h.xid() == 0xaa37727f).findFirst().orElseThrow();
        assertThat(longReply.chunks().replyChunk()).hasValueSatisfying(
                rc -> assertThat(rc.segments()).extracting(RdmaSegment::length).containsExactly(136L, 0L, 0L));
        assertThat(longReply.chunks().readList()).isEmpty(); // RPC-R-047
        assertThat(replies).allSatisfy(h -> assertThat(Integer.toUnsignedLong(h.credits())).isPositive()); // RPC-R-005

        TcpConnection c1 = connections.get(1);
        List<RpcRdmaHeader> readCalls = decode(c1.clientToServer()).headers();
        List<RpcRdmaHeader> readReplies = decode(c1.serverToClient()).headers();
        // Frames 104 and 125: READ of 262144 octets offers one Write chunk of one 262144-octet
        // segment, and the reply (RDMA_MSG) gives the same chunk back with the length written.
        RpcRdmaHeader.RdmaMsg read = (RpcRdmaHeader.RdmaMsg) readCalls.stream()
                .filter(h -> h.xid() == 0x1d2f65b5).findFirst().orElseThrow();
        RpcRdmaHeader.RdmaMsg readReply = (RpcRdmaHeader.RdmaMsg) readReplies.stream()
                .filter(h -> h.xid() == 0x1d2f65b5).findFirst().orElseThrow();
        assertThat(read.chunks().writeList()).singleElement().satisfies(
                w -> assertThat(w.segments()).extracting(RdmaSegment::length).containsExactly(262144L));
        assertThat(readReply.chunks().writeList()).isEqualTo(read.chunks().writeList());
        // Frames 139 and 144: READDIRPLUS's 332-octet reply came back in segment 1 of its Reply chunk.
        RpcRdmaHeader.RdmaNomsg readdirplus = (RpcRdmaHeader.RdmaNomsg) readReplies.stream()
                .filter(h -> h.xid() == 0x212f65b5).findFirst().orElseThrow();
        assertThat(readdirplus.chunks().replyChunk()).hasValueSatisfying(
                rc -> assertThat(rc.segments()).extracting(RdmaSegment::length).containsExactly(124L, 332L, 0L));
    }

    // ------------------------------------------------------------------ the tshark table

    private static List<Row> table() throws IOException {
        List<Row> rows = new ArrayList<>();
        try (InputStream in = NfsCaptureHeaderTest.class.getResourceAsStream("nfs3-rdma-siw-rpcordma.psv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\\|", 6);
                rows.add(new Row(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]));
            }
        }
        return rows;
    }

    /** Our decode in tshark's column format: xid|version|credits|proc|reads|writes|reply|positions|... */
    private static String fields(RpcRdmaHeader h) {
        List<String> cols = new ArrayList<>();
        cols.add(String.format("0x%08x", h.xid()));
        cols.add(Integer.toUnsignedString(h.version()));
        cols.add(Integer.toUnsignedString(h.credits()));
        cols.add(Integer.toString(h.procedure().code()));
        ChunkLists chunks = h instanceof RpcRdmaHeader.RdmaMsg m ? m.chunks()
                : h instanceof RpcRdmaHeader.RdmaNomsg n ? n.chunks() : null;
        if (chunks == null) {
            throw new AssertionError("Linux sent " + h);
        }
        cols.add(Integer.toString(chunks.readList().size()));
        cols.add(Integer.toString(chunks.writeList().size()));
        cols.add(chunks.replyChunk().isPresent() ? "1" : "0");
        List<RdmaSegment> segments = new ArrayList<>();
        List<String> positions = new ArrayList<>();
        for (ReadSegment r : chunks.readList()) {
            positions.add(Long.toString(r.position()));
            segments.add(r.target());
        }
        List<String> counts = new ArrayList<>();
        List<WriteChunk> writeChunks = new ArrayList<>(chunks.writeList());
        chunks.replyChunk().ifPresent(writeChunks::add);
        for (WriteChunk w : writeChunks) {
            counts.add(Integer.toString(w.segments().size()));
            segments.addAll(w.segments());
        }
        cols.add(String.join(",", positions));
        cols.add(String.join(",", counts));
        cols.add(segments.stream().map(s -> String.format("0x%08x", s.handle())).collect(Collectors.joining(",")));
        cols.add(segments.stream().map(s -> Long.toString(s.length())).collect(Collectors.joining(",")));
        cols.add(segments.stream().map(s -> String.format("0x%016x", s.offset())).collect(Collectors.joining(",")));
        cols.add(""); // errcode
        cols.add(""); // vers_low
        cols.add(""); // vers_high
        return String.join("|", cols);
    }

    // ------------------------------------------------------------------ MPA / DDP by hand

    private static Direction decode(TcpDirection direction) {
        byte[] stream = direction.stream(); // throws if the capture lost a segment of this direction
        ByteBuf in = Unpooled.wrappedBuffer(stream);
        int pdLength = in.getUnsignedShort(MPA_KEY_LENGTH + 2);
        int flags = in.getUnsignedByte(MPA_KEY_LENGTH);
        assertThat(flags & 0x80).as("markers (M) are off in this capture").isZero();
        byte[] privateData = new byte[pdLength];
        in.getBytes(MPA_KEY_LENGTH + 4, privateData);
        in.readerIndex(MPA_KEY_LENGTH + 4 + pdLength);
        RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();
        List<RpcRdmaHeader> headers = new ArrayList<>();
        Map<Long, ByteBuf> partialSends = new TreeMap<>();
        while (in.readableBytes() >= 2) {
            int fpduStart = in.readerIndex();
            int ulpduLength = in.getUnsignedShort(fpduStart);
            int fpduLength = (2 + ulpduLength + 3) / 4 * 4 + 4; // length, ULPDU, pad, CRC
            if (in.readableBytes() < fpduLength) {
                break; // an FPDU cut short: bytesRead stays below the stream's length
            }
            ByteBuf ulpdu = in.slice(fpduStart + 2, ulpduLength);
            in.readerIndex(fpduStart + fpduLength);
            int ddpControl = ulpdu.getUnsignedByte(0);
            int opcode = ulpdu.getUnsignedByte(1) & 0x0F;
            boolean tagged = (ddpControl & 0x80) != 0;
            boolean last = (ddpControl & 0x40) != 0;
            if (tagged || opcode < 3 || opcode > 6 || ulpdu.getInt(6) != 0) {
                continue; // RDMA Write / Read Response (tagged), Read Request or Terminate (QN 1, 2)
            }
            long msn = ulpdu.getUnsignedInt(10);
            long mo = ulpdu.getUnsignedInt(14);
            ByteBuf message = partialSends.computeIfAbsent(msn, k -> Unpooled.buffer());
            assertThat(message.writerIndex()).as("MO of MSN %d", msn).isEqualTo(mo);
            message.writeBytes(ulpdu, DDP_UNTAGGED_HEADER, ulpduLength - DDP_UNTAGGED_HEADER);
            if (last) {
                partialSends.remove(msn);
                HeaderDecodeResult r = decoder.decode(message);
                assertThat(r).as("Send MSN %d", msn).isInstanceOf(HeaderDecodeResult.Decoded.class);
                headers.add(((HeaderDecodeResult.Decoded) r).header());
            }
        }
        return new Direction(privateData, headers, in.readerIndex(), stream.length);
    }

    static byte[] mpaPrivateData(TcpDirection direction) {
        return decode(direction).mpaPrivateData();
    }
}
