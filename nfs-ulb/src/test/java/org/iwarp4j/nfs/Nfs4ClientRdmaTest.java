package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.Nfs4ClientTcpTest.sha256;

import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.iwarp4j.nfs.v3.CapturedRpc;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our NFSv4 client against our server over RPC-over-RDMA on two software RNICs (loopback), with
 * the client's connection recorded and taken apart layer by layer ({@link CapturedRpc}): RFC 8267
 * §6.1 as a Requester — each WRITE's data leaves the Payload stream and travels in a Read chunk
 * whose Position is where the data item was, each READ's data comes back in the Write chunk the
 * call provided, and a READDIR whose reply can outgrow the inline threshold gets a Reply chunk
 * (ULB-R-012, ULB-R-016, ULB-R-023: never more than one Read chunk and one Write chunk).
 */
class Nfs4ClientRdmaTest {

    private static final int TRANSFER = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void putGetLsRemoveOverRdmaWithTheDataInChunks() throws Exception {
        byte[] data = new byte[4 * TRANSFER + 999];
        new Random(8).nextBytes(data);
        Files.createDirectory(dir.resolve("many"));
        for (int i = 0; i < 150; i++) {
            Files.createFile(dir.resolve("many/entry-with-a-rather-long-name-to-fill-replies-" + i));
        }
        ByteArrayOutputStream pcap = new ByteArrayOutputStream();
        try (Rnic serverRnic = Rnic.builder().name("server").build();
             Rnic clientRnic = Rnic.builder().name("client")
                     .channelInitializer(ch -> ch.pipeline().addLast(new PcapWriteHandler(pcap))).build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT).tcpAddress(null)
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).workerThreads(2).start()) {
            try (Nfs4Client nfs = Nfs4Client.builder(new InetSocketAddress("127.0.0.1", server.rdmaPort()))
                    .rdma(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()))
                    .maxTransfer(TRANSFER).window(4).connect()) {
                assertThat(nfs.transport()).isInstanceOf(RpcRdmaRequester.class);
                assertThat(nfs.minorVersion()).isEqualTo(2);
                assertThat(nfs.upload(new ByteArrayInputStream(data), "f.bin")).isEqualTo(data.length);
                assertThat(sha256(Files.readAllBytes(dir.resolve("f.bin")))).isEqualTo(sha256(data));
                ByteArrayOutputStream back = new ByteArrayOutputStream();
                assertThat(nfs.download("f.bin", back)).isEqualTo(data.length);
                assertThat(sha256(back.toByteArray())).isEqualTo(sha256(data));
                assertThat(nfs.list("many")).hasSize(150).extracting(DirEntry4::name)
                        .contains("entry-with-a-rather-long-name-to-fill-replies-149");
                nfs.remove("f.bin");
                assertThat(dir.resolve("f.bin")).doesNotExist();
                assertThatThrownBy(() -> nfs.stat("f.bin")).isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_NOENT));
            }
        }
        Path file = dir.resolve("client.pcap");
        Files.write(file, pcap.toByteArray());
        List<CapturedRpc> messages = CapturedRpc.read(file);

        List<CapturedRpc> writes = messages.stream().filter(m -> m.fromClient() && hasOp(m, Nfs4Constants.OP_WRITE))
                .toList();
        assertThat(writes).as("a COMPOUND per WRITE").hasSize(5);
        int full = 0;
        for (CapturedRpc w : writes) {
            assertThat(w.readChunkPositions().stream().distinct().count()).as("one Read chunk").isLessThanOrEqualTo(1);
            if (w.readChunkPositions().isEmpty()) {
                assertThat(w.rpc().length).as("only the short tail WRITE goes inline").isLessThan(4096);
                continue;
            }
            full++;
            // [SEQUENCE, PUTFH, WRITE]: the data item is the last thing in the call, so with it gone
            // its Position is the end of the reduced Payload stream (RFC 8166 §3.4.5, RFC 8267 §6.1).
            assertThat(w.readChunkPositions()).allMatch(p -> p == w.rpc().length);
            assertThat(ByteBuffer.wrap(w.rpc()).getInt(w.rpc().length - 4)).as("the length word stays inline")
                    .isEqualTo(TRANSFER);
            byte[] pulled = w.chunkData().get(0);
            int offset = indexOf(data, pulled);
            assertThat(offset).as("the Read chunk holds file octets").isNotNegative();
            assertThat(offset % TRANSFER).isZero();
        }
        assertThat(full).isEqualTo(4);

        List<CapturedRpc> readCalls = messages.stream().filter(m -> m.fromClient() && hasOp(m, Nfs4Constants.OP_READ))
                .toList();
        assertThat(readCalls).isNotEmpty();
        long octetsPushed = 0;
        for (CapturedRpc call : readCalls) {
            assertThat(call.writeChunkLengths()).as("one Write chunk, the READ's count").containsExactly((long) TRANSFER);
            CapturedRpc reply = messages.stream().filter(m -> !m.fromClient() && m.xid() == call.xid()).findFirst()
                    .orElseThrow();
            assertThat(reply.chunkData()).as("READ data pushed into the Write chunk").hasSize(1);
            byte[] pushed = reply.chunkData().get(0);
            assertThat(indexOf(data, pushed)).isNotNegative(); // empty for a READ the window sent past the end
            octetsPushed += pushed.length;
            assertThat(reply.rpc().length).as("the reply itself is small").isLessThan(1024);
        }
        assertThat(octetsPushed).as("every octet of the file came through Write chunks").isEqualTo(data.length);
        List<CapturedRpc> readdirs = messages.stream()
                .filter(m -> m.fromClient() && hasOp(m, Nfs4Constants.OP_READDIR)).toList();
        assertThat(readdirs).isNotEmpty().allMatch(CapturedRpc::replyChunk);
        assertThat(readdirs).allMatch(c -> c.writeChunkLengths().isEmpty());
        assertThat(messages.stream().filter(m -> !m.fromClient() && m.proc() == 1
                && readdirs.stream().anyMatch(c -> c.xid() == m.xid()))).as("READDIR replies as RDMA_NOMSG")
                .isNotEmpty();
        assertThat(messages.stream().filter(CapturedRpc::fromClient)).as("no call has more than one Write chunk")
                .allMatch(c -> c.writeChunkLengths().size() <= 1);
        List<CapturedRpc> sequenceOnly = messages.stream().filter(m -> m.fromClient()
                && hasOp(m, Nfs4Constants.OP_GETFH) && !hasOp(m, Nfs4Constants.OP_OPEN)).toList();
        assertThat(sequenceOnly).as("small COMPOUNDs need no chunk").isNotEmpty()
                .allMatch(c -> !c.replyChunk() && c.writeChunkLengths().isEmpty());
    }

    /** Whether an NFSv4 COMPOUND call has this operation (walking its opcodes is not needed: a word search is enough
     *  for the test's fixed shapes, each op being word-aligned and the opcodes distinct from the other words). */
    private static boolean hasOp(CapturedRpc m, int opcode) {
        if (!m.isCall() || m.callProcedure()[0] != Nfs4Constants.PROGRAM || m.callProcedure()[2] != 1) {
            return false;
        }
        var body = m.body();
        try {
            int tag = body.readInt();
            body.skipBytes((tag + 3) & ~3);
            body.readInt();
            int count = body.readInt();
            body.readInt(); // SEQUENCE's opcode: every COMPOUND checked here starts with it or is session setup
            if (count < 2) {
                return false;
            }
            body.skipBytes(32);
            int second = body.readInt();
            if (second == opcode) {
                return true;
            }
            // PUTFH then the operation of interest
            if (second == Nfs4Constants.OP_PUTFH) {
                int fh = body.readInt();
                body.skipBytes((fh + 3) & ~3);
                int third = body.readInt();
                if (third == opcode) {
                    return true;
                }
                if (opcode == Nfs4Constants.OP_GETFH && third == Nfs4Constants.OP_LOOKUP) {
                    return true;
                }
            }
            return false;
        } finally {
            body.release();
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i += 1024) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}
