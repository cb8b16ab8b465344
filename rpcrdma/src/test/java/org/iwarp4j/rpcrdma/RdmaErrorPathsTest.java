package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.hex;
import static org.iwarp4j.rpcrdma.Messages.words;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our Responder against a hand-made Requester: every way a Call's transport header can be wrong
 * gets exactly the RFC 8166 §4.5 answer (RDMA_ERROR octets checked) or none, and the connection
 * survives (a NULL Call after each one is answered). Every header error of a Call that is not
 * to be dropped gets an RDMA_ERROR (RPC-R-059).
 */
class RdmaErrorPathsTest {

    private static final int GRANT = 7;
    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
    private final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
    private RpcRdmaServer server;
    private RawPeer peer;

    @BeforeEach
    void connect() throws Exception {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().credits(GRANT).binding(new EchoBinding()).build();
        server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()), settings);
        peer = RawPeer.requester(clientRnic, server.localAddress());
    }

    @AfterEach
    void close() {
        try {
            peer.close();
            server.close();
        } finally {
            clientRnic.close();
            serverRnic.close();
        }
    }

    /** The RDMA_ERROR / ERR_CHUNK octets for {@code xid} (RPC-R-061). */
    private static byte[] errChunk(int xid) {
        return words(xid, 1, GRANT, 4, 2);
    }

    /** A NULL Call goes through, so the connection is alive and nothing else was queued for us. */
    private void assertStillServing(int xid) throws Exception {
        peer.send(concat(fixed(xid, 1, 1, 0), words(0, 0, 0), echoCall(xid, EchoProgram.PROC_NULL, new byte[0])));
        byte[] reply = peer.receive();
        assertThat(reply).startsWith(words(xid, 1, GRANT, 0, 0, 0, 0, xid, 1));
        assertThat(peer.qp.state()).isEqualTo(QueuePairState.RTS);
    }

    private byte[] answerTo(byte[] message) throws Exception {
        peer.send(message);
        return peer.receive();
    }

    @Test
    void unsupportedVersionGetsErrVersEchoingTheVersion() throws Exception { // RPC-R-064, RPC-R-061
        byte[] m = concat(fixed(0x11, 2, 1, 0), words(0, 0, 0), echoCall(0x11, 0, new byte[0]));
        assertThat(answerTo(m)).isEqualTo(words(0x11, 2, GRANT, 4, 1, 1, 1));
        assertStillServing(0x12);
    }

    @Test
    void unknownProcedureIsErrChunk() throws Exception { // RPC-R-065
        assertThat(answerTo(concat(fixed(0x21, 1, 1, 5), words(0, 0, 0), echoCall(0x21, 0, new byte[0]))))
                .isEqualTo(errChunk(0x21));
        assertStillServing(0x22);
    }

    @Test
    void rdmaNomsgWithoutChunksIsErrChunk() throws Exception { // RPC-R-042
        assertThat(answerTo(concat(fixed(0x31, 1, 1, 1), words(0, 0, 0)))).isEqualTo(errChunk(0x31));
        assertStillServing(0x32);
    }

    @Test
    void anRdmaXidThatDiffersFromTheCallsIsErrChunk() throws Exception { // RPC-R-038
        assertThat(answerTo(concat(fixed(0x41, 1, 1, 0), words(0, 0, 0), echoCall(0x4F, 0, new byte[0]))))
                .isEqualTo(errChunk(0x41));
        assertStillServing(0x42);
    }

    @Test
    void aTruncatedHeaderIsSilentlyDiscarded() throws Exception { // RPC-R-058
        peer.send(words(0x51, 1, 1, 0, 0, 0)); // 24 octets
        peer.send(words(0x52, 1, 1)); // 12 octets
        assertStillServing(0x53); // the next message received is the NULL reply
        assertThat(server.responders().get(0).discarded()).isEqualTo(2);
    }

    @Test
    void chunkListsThatOverrunTheMessageAreErrChunk() throws Exception { // RPC-R-065
        // A Write chunk that counts 3 segments and carries 2, then the end of the message.
        byte[] m = concat(fixed(0x61, 1, 1, 1), words(0, 1, 3), hex("aabbccdd 00001000 00000000 00001000"),
                hex("aabbccde 00001000 00000000 00002000"));
        assertThat(answerTo(m)).isEqualTo(errChunk(0x61));
        assertStillServing(0x62);
    }

    @Test
    void anAbsurdSegmentCountIsErrChunkWithoutAllocating() throws Exception { // RPC-R-065
        byte[] m = concat(fixed(0x71, 1, 1, 1), words(0, 1, 0xFFFFFFFF, 0, 0));
        assertThat(answerTo(m)).isEqualTo(errChunk(0x71));
        assertStillServing(0x72);
    }

    @Test
    void aPositionThatIsNotAMultipleOfFourIsErrChunk() throws Exception { // RPC-R-023
        byte[] m = concat(fixed(0x81, 1, 1, 0), words(1, 6, 0x1234, 8, 0, 0, 0, 0, 0),
                echoCall(0x81, EchoProgram.PROC_SINK, words(8)));
        assertThat(answerTo(m)).isEqualTo(errChunk(0x81));
        assertStillServing(0x82);
    }

    @Test
    void anAbsurdlyLongReadChunkIsRefused() throws Exception { // RPC-R-077
        byte[] m = concat(fixed(0x91, 1, 1, 0), words(1, 44, 0x1234, 0xFFFFFFFF, 0, 0, 0, 0, 0),
                echoCall(0x91, EchoProgram.PROC_SINK, words(-1)));
        assertThat(answerTo(m)).isEqualTo(errChunk(0x91));
        assertStillServing(0x92);
    }

    @Test
    void readChunksLongerThanTheLimitTogetherAreRefusedBeforeAnyRdmaRead() throws Exception { // RPC-R-077
        // Two chunks of 12 MiB: each within the 16 MiB limit, together beyond it. Their STags are bogus, so
        // an RDMA Read would end the connection; the NULL Call afterwards shows none was issued.
        byte[] m = concat(fixed(0x93, 1, 1, 0), words(1, 44, 0x1234, 12 << 20, 0, 0, 1, 48, 0x1235, 12 << 20, 0, 0, 0, 0, 0),
                echoCall(0x93, EchoProgram.PROC_SINK, words(12 << 20)));
        assertThat(answerTo(m)).isEqualTo(errChunk(0x93));
        assertStillServing(0x94);
    }

    @Test
    void aReadChunkShorterThanItsLengthWordIsGarbageArgsNotATransportError() throws Exception { // RPC-R-066
        // SINK's length word says 100 octets, the Read chunk at Position 44 holds 8.
        assertThat(answerToSinkWithReadChunk(0x95, 44, 100)).isEqualTo(garbageArgs(0x95));
        assertStillServing(0x96);
    }

    /**
     * RPC-R-066: a Read chunk whose Position lies past the end of the Payload stream is a mismatch
     * between a chunk's offset and the Payload stream, which RFC 8166 §4.5.2 names as a GARBAGE_ARGS
     * case: the header itself is valid.
     */
    @Test
    void aReadChunkPositionPastTheEndOfThePayloadStreamIsGarbageArgs() throws Exception {
        // SINK's length word ends the 44-octet stream; the Read chunk says Position 48.
        assertThat(answerToSinkWithReadChunk(0x97, 48, 8)).isEqualTo(garbageArgs(0x97));
        assertStillServing(0x98);
    }

    /** RDMA_MSG, no chunks, then an accepted Reply with accept_stat GARBAGE_ARGS (4). */
    private static byte[] garbageArgs(int xid) {
        return words(xid, 1, GRANT, 0, 0, 0, 0, xid, 1, 0, 0, 0, 4);
    }

    /**
     * The answer to a SINK Call (44 octets inline, its length word saying {@code lengthWord}) with
     * one Read chunk of 8 octets at {@code position}.
     */
    private byte[] answerToSinkWithReadChunk(int xid, int position, int lengthWord) throws Exception {
        ByteBuf memory = Unpooled.directBuffer(8).writeZero(8);
        try (MemoryRegion source = peer.qp.register(memory, EnumSet.of(Access.REMOTE_READ))) {
            return answerTo(concat(fixed(xid, 1, 1, 0), words(1, position, source.stag(), 8,
                    (int) (source.baseTaggedOffset() >>> 32), (int) source.baseTaggedOffset(), 0, 0, 0),
                    echoCall(xid, EchoProgram.PROC_SINK, words(lengthWord))));
        } finally {
            memory.release();
        }
    }

    @Test
    void rdmaMsgpIsAnsweredWithErrChunk() throws Exception { // RPC-R-070
        byte[] m = concat(fixed(0xA1, 1, 1, 2), words(4, 1024, 0, 0, 0), echoCall(0xA1, 0, new byte[0]));
        assertThat(answerTo(m)).isEqualTo(errChunk(0xA1));
        assertStillServing(0xA2);
    }

    @Test
    void rdmaDoneAndRdmaErrorAreSilentlyDiscarded() throws Exception { // RPC-R-071, RPC-R-044
        peer.send(fixed(0xB1, 1, 1, 3));
        peer.send(words(0xB2, 1, 1, 4, 2));
        peer.send(words(0xB3, 1, 1, 4, 1, 1, 1));
        assertStillServing(0xB4);
        assertThat(server.responders().get(0).discarded()).isEqualTo(3);
    }

    /**
     * RPC-R-044: RFC 8166 §7 fixes RDMA_ERROR's value and place for every version, so an RDMA_ERROR
     * with an rdma_vers we do not know is still an RDMA_ERROR, dropped unanswered rather than met with
     * ERR_VERS (which a peer of that version would drop in turn). rdma_proc 3 is RDMA_DONE only in
     * version 1 (§7 fixes RDMA_MSG, RDMA_NOMSG and RDMA_ERROR alone): of another version it is a
     * message of that version, owed ERR_VERS (RPC-R-064).
     */
    @Test
    void anRdmaErrorOfAnotherVersionIsSilentlyDiscarded() throws Exception {
        peer.send(words(0xB5, 2, 1, 4, 2, 0, 0)); // ERR_CHUNK, 28 octets
        peer.send(words(0xB6, 0x01000000, 1, 4, 7, 0, 0, 0)); // an rdma_err of that version, 32 octets
        assertStillServing(0xB7);
        assertThat(server.responders().get(0).discarded()).isEqualTo(2);
        assertThat(answerTo(words(0xB8, 2, 1, 3, 0, 0, 0))).isEqualTo(words(0xB8, 2, GRANT, 4, 1, 1, 1));
    }

    @Test
    void aReadChunkForAnArgumentThatIsNotDdpEligibleIsErrChunk() throws Exception { // RPC-R-073
        // ECHO's data is not DDP-eligible in the echo binding; reducing it is a protocol error.
        byte[] m = concat(fixed(0xC1, 1, 1, 0), words(1, 44, 0x1234, 8, 0, 0x1000, 0, 0, 0),
                echoCall(0xC1, EchoProgram.PROC_ECHO, words(8)));
        assertThat(answerTo(m)).isEqualTo(errChunk(0xC1));
        assertStillServing(0xC2);
    }

    /**
     * RPC-R-073: SINK may have a Read chunk, but only for its data. One at Position 40, where SINK's
     * length word is, puts placed data where an item that is not DDP-eligible lies: the Call is not
     * processed (RFC 8166 §6.1), and gets ERR_CHUNK, however the procedure would have read it.
     */
    @Test
    void aReadChunkAtAnItemThatIsNotDdpEligibleIsErrChunkEvenForAProcedureThatMayHaveOne() throws Exception {
        assertThat(answerToSinkWithReadChunk(0xC3, 40, 8)).isEqualTo(errChunk(0xC3));
        assertStillServing(0xC4);
    }

    /**
     * RPC-R-073: placed data in the RPC call header itself (the program number at Position 12, the
     * credential at 24, the verifier at 32) is reduced data no item may take: ERR_CHUNK, as for
     * any other argument, not an RPC reply. The credential and the verifier got MSG_DENIED
     * AUTH_BADCRED and AUTH_BADVERF (the thirteenth review's item 4).
     */
    @ParameterizedTest
    @ValueSource(ints = {12, 24, 32})
    void aReadChunkInTheCallHeaderIsErrChunk(int position) throws Exception {
        assertThat(answerToSinkWithReadChunk(0xC5, position, 8)).isEqualTo(errChunk(0xC5));
        assertStillServing(0xC6);
    }

    /**
     * RPC-R-038, RPC-R-065: a Long Call (RDMA_NOMSG) whose RPC message, pulled from its
     * Position-Zero Read chunk, has another XID than the transport header is ERR_CHUNK, as the same
     * mismatch in an RDMA_MSG Call is. It was served, and its Reply carried both XIDs.
     */
    @Test
    void aLongCallWhoseRpcXidDiffersFromItsRdmaXidIsErrChunk() throws Exception {
        byte[] call = echoCall(0xC8, EchoProgram.PROC_NULL, new byte[0]);
        ByteBuf memory = Unpooled.directBuffer(call.length).writeBytes(call);
        try (MemoryRegion source = peer.qp.register(memory, EnumSet.of(Access.REMOTE_READ))) {
            byte[] m = concat(fixed(0xC7, 1, 1, 1), words(1, 0, source.stag(), call.length,
                    (int) (source.baseTaggedOffset() >>> 32), (int) source.baseTaggedOffset(), 0, 0, 0));
            assertThat(answerTo(m)).isEqualTo(errChunk(0xC7));
        } finally {
            memory.release();
        }
        assertStillServing(0xC9);
    }

    @Test
    void aReplyThatFitsNeitherInlineNorAnyChunkIsErrChunk() throws Exception { // RFC 8166 §4.5.3, RRC-R-004
        byte[] m = concat(fixed(0xD1, 1, 1, 0), words(0, 0, 0), echoCall(0xD1, EchoProgram.PROC_SOURCE, words(3000)));
        assertThat(answerTo(m)).isEqualTo(errChunk(0xD1));
        assertStillServing(0xD2);
    }

    @Test
    void aWriteChunkTooSmallForTheResultIsErrChunkAndNothingIsWritten() throws Exception { // RFC 8166 §4.5.3
        ByteBuf memory = Unpooled.directBuffer(100).writeZero(100);
        try (MemoryRegion target = peer.qp.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
            byte[] m = concat(fixed(0xE1, 1, 1, 0),
                    words(0, 1, 1, target.stag(), 100, (int) (target.baseTaggedOffset() >>> 32),
                            (int) target.baseTaggedOffset(), 0, 0),
                    echoCall(0xE1, EchoProgram.PROC_SOURCE, words(3000)));
            assertThat(answerTo(m)).isEqualTo(errChunk(0xE1));
            assertThat(memory.forEachByte(b -> b == 0)).isEqualTo(-1);
        } finally {
            memory.release();
        }
        assertStillServing(0xE2);
    }

    /**
     * RPC-R-045: a Reply that goes into the Reply chunk still sends its RDMA_NOMSG header, which
     * echoes every provided Write chunk. With RFC 8797 sizes that differ by direction (the Requester
     * sends 4 KiB, receives 1 KiB; the Responder receives 4 KiB), a Call whose Write list fits the
     * Call's threshold can make a header beyond the Reply's: that is ERR_CHUNK (RFC 8166 §4.5.3, a
     * Reply the Requester's resources cannot hold), not a Send the Requester cannot receive, and
     * nothing is written into the Reply chunk.
     */
    @Test
    void aReplyChunkReplyWhoseHeaderExceedsTheReplyThresholdIsErrChunk() throws Exception {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().credits(GRANT).inlineReceiveSize(4096)
                .binding(new EchoBinding()).build();
        ByteBuf memory = Unpooled.directBuffer(256).writeZero(256);
        try (RpcRdmaServer asymmetric = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()), settings)) {
            RawPeer small = RawPeer.requester(clientRnic, asymmetric.localAddress(),
                    RpcRdmaPrivateData.of(false, 4096, 1024).encode());
            try (MemoryRegion target = small.qp.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                // One Write chunk of 64 segments (ECHO has no DDP-eligible result: it comes back unused,
                // all 64 echoed), then a Reply chunk of one 256-octet segment.
                int[] lists = new int[2 + 1 + 64 * 4 + 1 + 1 + 1 + 4];
                lists[1] = 1;
                lists[2] = 64;
                for (int i = 0; i < 64; i++) {
                    lists[3 + 4 * i] = 0x1234 + i;
                    lists[4 + 4 * i] = 16;
                    lists[6 + 4 * i] = 0x1000 * (i + 1);
                }
                int reply = 3 + 64 * 4;
                lists[reply] = 0; // end of the Write list
                lists[reply + 1] = 1; // a Reply chunk
                lists[reply + 2] = 1;
                lists[reply + 3] = target.stag();
                lists[reply + 4] = 256;
                lists[reply + 5] = (int) (target.baseTaggedOffset() >>> 32);
                lists[reply + 6] = (int) target.baseTaggedOffset();
                byte[] m = concat(fixed(0x0121, 1, 1, 0), words(java.util.Arrays.copyOf(lists, reply + 7)),
                        echoCall(0x0121, EchoProgram.PROC_NULL, new byte[0]));
                assertThat(m.length).isBetween(1024, 4096);
                small.send(m);
                assertThat(small.receive()).isEqualTo(errChunk(0x0121));
                assertThat(memory.forEachByte(b -> b == 0)).isEqualTo(-1);
            } finally {
                small.close();
            }
        } finally {
            memory.release();
        }
    }

    @Test
    void anEmptyWriteChunkMakesTheResultComeBackInline() throws Exception { // RPC-R-053, ULB-R-020
        byte[] m = concat(fixed(0xF1, 1, 1, 0), words(0, 1, 0, 0, 0), echoCall(0xF1, EchoProgram.PROC_SOURCE, words(5)));
        byte[] reply = answerTo(m);
        // Write list: one empty chunk returned; then the Reply with the 5 octets and their padding inline.
        assertThat(reply).startsWith(words(0xF1, 1, GRANT, 0, 0, 1, 0, 0, 0, 0xF1, 1, 0, 0, 0, 0, 5));
        assertThat(reply).hasSize(28 + 8 + 24 + 4 + 8);
    }

    /**
     * RPC-R-013: without larger sizes agreed, a receiver still takes a Send of 1024 octets, header
     * and Payload stream together. Our Responder's default receive size is 1024, the raw Requester
     * announces 4096: the Call threshold is 1024, and a SINK Call of exactly that many octets goes
     * inline and is answered, the connection still up.
     */
    @Test
    void aCallOfExactly1024OctetsIsReceivedInline() throws Exception {
        byte[] data = new byte[1024 - 28 - 40 - 4];
        java.util.Arrays.fill(data, (byte) 0x5A);
        byte[] m = concat(fixed(0x0101, 1, 1, 0), words(0, 0, 0),
                echoCall(0x0101, EchoProgram.PROC_SINK, concat(words(data.length), data)));
        assertThat(m).hasSize(1024);
        byte[] reply = answerTo(m);
        // RDMA_MSG, no chunks, an accepted Reply, then sink_res: the length and a CRC.
        assertThat(reply).startsWith(words(0x0101, 1, GRANT, 0, 0, 0, 0, 0x0101, 1, 0, 0, 0, 0, data.length));
        assertThat(reply).hasSize(28 + 24 + 8);
        assertStillServing(0x0102);
    }

    @Test
    void aCallTheRpcLayerCannotParseIsErrChunkSoTheCreditComesBack() throws Exception { // RFC 8166 §4.5.2
        byte[] notACall = words(0x0111, 7, 2);
        assertThat(answerTo(concat(fixed(0x0111, 1, 1, 0), words(0, 0, 0), notACall))).isEqualTo(errChunk(0x0111));
        assertStillServing(0x0112);
    }
}
