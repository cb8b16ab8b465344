package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.reply;
import static org.iwarp4j.rpcrdma.Messages.words;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our Requester against a hand-made Responder: RDMA_ERROR, Replies with unknown XIDs, bad headers,
 * odd credit grants and broken chunks get the RFC 8166 treatment.
 */
class RequesterRepliesTest {

    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
    private final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
    private RawPeer raw;
    private RpcRdmaRequester requester;
    private RpcClient client;
    private EchoClient echo;

    private void connect(RpcRdmaSettings.Builder settings) throws Exception {
        raw = RawPeer.responder(serverRnic, RpcRdmaPrivateData.of(true, 4096, 4096).encode());
        requester = RpcRdmaRequester.connect(clientRnic, raw.address(), settings.binding(new EchoBinding()).build())
                .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        raw.accepted().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        client = RpcClient.builder(requester).timeout(Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS)).build();
        echo = new EchoClient(client);
    }

    @AfterEach
    void close() {
        try {
            if (client != null) {
                client.close();
            }
            if (raw != null) {
                raw.close();
            }
        } finally {
            clientRnic.close();
            serverRnic.close();
        }
    }

    /** The next Call the raw Responder received, decoded. */
    private RpcRdmaHeader nextCall() throws InterruptedException {
        HeaderDecodeResult r = new RpcRdmaHeaderDecoder().decode(Unpooled.wrappedBuffer(raw.receive()));
        return ((HeaderDecodeResult.Decoded) r).header();
    }

    private static byte[] nullReply(int xid, int credits) {
        return concat(fixed(xid, 1, credits, 0), words(0, 0, 0), reply(xid, new byte[0]));
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * RPC-R-062, RPC-R-064. A Responder echoes the failing Call's rdma_vers (RPC-R-061); had the Call
     * been garbled on its way, that is not 1, and §7 keeps ERR_VERS decodable whatever the version:
     * discarding it would leave the call to time out.
     */
    @ParameterizedTest(name = "rdma_vers {0}")
    @ValueSource(ints = {1, 0x01000000})
    void errVersFailsTheCallPermanentlyWithTheSupportedRange(int echoedVersion) throws Exception {
        connect(RpcRdmaSettings.builder());
        CompletableFuture<Void> call = echo.nullCall();
        int xid = nextCall().xid();
        raw.send(words(xid, echoedVersion, 4, 4, 1, 1, 1));
        assertThat(cause(call)).isInstanceOfSatisfying(RpcRdmaErrorException.class, e -> {
            assertThat(e.code()).isEqualTo(RpcRdmaErrorException.Code.ERR_VERS);
            assertThat(e.low()).isEqualTo(1);
            assertThat(e.high()).isEqualTo(1);
            assertThat(e.getMessage()).contains("protocol not supported");
            if (echoedVersion == 1) {
                assertThat(e.getMessage()).doesNotContain("reached it with");
            } else {
                assertThat(e.getMessage()).endsWith("; the Call reached it with rdma_vers 0x01000000, not the 1 sent");
            }
        });
        assertThat(raw.receive(1)).as("not retransmitted").isNull();
    }

    @Test
    void errChunkOfTwentyOctetsFailsTheCall() throws Exception { // RPC-R-058, RPC-R-062
        connect(RpcRdmaSettings.builder());
        CompletableFuture<Void> call = echo.nullCall();
        int xid = nextCall().xid();
        raw.send(words(xid, 1, 4, 4, 2));
        assertThat(cause(call)).isInstanceOfSatisfying(RpcRdmaErrorException.class,
                e -> assertThat(e.code()).isEqualTo(RpcRdmaErrorException.Code.ERR_CHUNK));
    }

    @Test
    void aReplyWithAnUnknownXidIsDiscardedAndTheRealOneStillCompletesTheCall() throws Exception {
        connect(RpcRdmaSettings.builder());
        CompletableFuture<Void> call = echo.nullCall();
        int xid = nextCall().xid();
        raw.send(nullReply(xid + 1000, 4));
        raw.send(nullReply(xid, 4));
        call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(requester.unknownXidReplies()).isEqualTo(1);
    }

    /**
     * RPC-R-058, RPC-R-060: a message too short for its XID to be trusted, or of another version
     * (whose layout is unknown), is dropped, and its Call waits for a Reply.
     */
    @Test
    void repliesWhoseXidCannotBeTrustedAreDiscardedAndTheCallWaits() throws Exception {
        connect(RpcRdmaSettings.builder());
        CompletableFuture<Void> call = echo.nullCall();
        int xid = nextCall().xid();
        raw.send(words(xid, 1, 4, 0, 0, 0)); // 24 octets
        raw.send(concat(fixed(xid, 2, 4, 0), words(0, 0, 0), reply(xid, new byte[0]))); // version 2
        raw.send(nullReply(xid, 4));
        call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(requester.discardedReplies()).isEqualTo(2);
    }

    /**
     * RPC-R-060, RPC-R-063, RPC-R-070, RPC-R-071: a version-1 message with the XID of a Call in
     * flight whose header is in error is dropped silently (never answered, never handed to RPC)
     * and ends that Call: the Responder answered it and will not again on this connection, and
     * its credit is free again. With one credit, each next Call goes out only because of that.
     */
    @Test
    void aMalformedReplyWithTheXidOfACallEndsThatCallAndGivesItsCreditBack() throws Exception {
        connect(RpcRdmaSettings.builder().credits(1));
        await(echo.nullCall(), 1);
        List<IntFunction<byte[]>> malformed = List.of(
                xid -> words(xid, 1, 1, 4, 7), // an RDMA_ERROR that cannot be decoded
                xid -> concat(fixed(xid, 1, 1, 2), words(0, 0, 0, 0, 0), reply(xid, new byte[0])), // RDMA_MSGP
                xid -> fixed(xid, 1, 1, 3), // RDMA_DONE
                xid -> concat(fixed(xid, 1, 1, 0), words(0, 1, 9))); // a Write list that overruns
        int xid = 0;
        for (IntFunction<byte[]> m : malformed) {
            CompletableFuture<Void> call = echo.nullCall();
            xid = nextCall().xid();
            raw.send(m.apply(xid));
            assertThat(cause(call)).isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessageContaining(String.format("xid 0x%08x", xid));
        }
        await(echo.nullCall(), 1);
        assertThat(requester.discardedReplies()).isEqualTo(4);
        assertThat(requester.unknownXidReplies()).isZero();
        // What a call that times out after a discarded Reply says of it (RpcTimeoutException's message).
        assertThat(requester.state()).contains(String.format(
                "4 discarded (the last: xid 0x%08x: header error XDR_ERROR: Write chunk of 9 segments overruns", xid))
                .contains(String.format("(28 octets, starting %08x000000010000000100000000000000000000000100000009))",
                        xid));
    }

    /**
     * A Responder that never answers: the Calls given up on keep their credits (the Responder may
     * still hold their Receives), so once they hold every credit the Requester ends the connection
     * to get them back, as Linux's xprtrdma disconnects on an RPC timeout, and the next Call goes
     * out on a new connection.
     */
    @Test
    void whenCallsGivenUpOnHoldEveryCreditTheNextCallGoesOutOnANewConnection() throws Exception {
        try (RawPeer.Listening server = RawPeer.listening(serverRnic, RpcRdmaPrivateData.of(true, 4096, 4096).encode(),
                false)) {
            requester = RpcRdmaRequester.connect(clientRnic, server.address(),
                    RpcRdmaSettings.builder().credits(1).binding(new EchoBinding()).build())
                    .get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            client = RpcClient.builder(requester).timeout(Duration.ofSeconds(RpcRdmaPair.WAIT_SECONDS)).build();
            echo = new EchoClient(client);
            RawPeer first = server.next();
            CompletableFuture<Void> answered = echo.nullCall();
            first.send(nullReply(xidOf(first.receive()), 1));
            answered.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            CompletableFuture<Void> unanswered = echo.nullCall();
            xidOf(first.receive());
            unanswered.cancel(false); // as on a timeout
            first.qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

            CompletableFuture<Void> next = echo.nullCall();
            RawPeer second = server.next();
            second.send(nullReply(xidOf(second.receive()), 1));
            next.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(requester.connections()).isEqualTo(2);
        }
    }

    private static int xidOf(byte[] message) {
        return Unpooled.wrappedBuffer(message).getInt(0);
    }

    @Test
    void aGrantOfZeroIsTakenAsOne() throws Exception { // RPC-R-006
        connect(RpcRdmaSettings.builder().credits(8));
        await(echo.nullCall(), 0);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(echo.nullCall());
        }
        for (int i = 0; i < 3; i++) {
            int xid = nextCall().xid();
            assertThat(raw.receive(0)).as("one Call at a time with a grant of 0").isNull();
            raw.send(nullReply(xid, 0));
        }
        for (CompletableFuture<Void> c : calls) {
            c.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertThat(requester.grantedCredits()).isEqualTo(1);
        assertThat(requester.maxCallsInFlight()).isEqualTo(1);
    }

    @Test
    void aHugeGrantIsClampedToWhatTheRequesterAskedFor() throws Exception { // RPC-R-006, RPC-R-009
        connect(RpcRdmaSettings.builder().credits(3));
        await(echo.nullCall(), 0xFFFFFFFF);
        assertThat(requester.grantedCredits()).isEqualTo(3);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            calls.add(echo.nullCall());
        }
        List<Integer> xids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            xids.add(nextCall().xid());
        }
        assertThat(raw.receive(1)).as("never more than requested").isNull();
        for (int xid : xids) {
            raw.send(nullReply(xid, 0xFFFFFFFF));
        }
        raw.send(nullReply(nextCall().xid(), 0xFFFFFFFF));
        raw.send(nullReply(nextCall().xid(), 0xFFFFFFFF));
        for (CompletableFuture<Void> c : calls) {
            c.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        }
        assertThat(requester.maxCallsInFlight()).isEqualTo(3);
    }

    @Test
    void theGrantInForceIsTheLastReplys() throws Exception { // RPC-R-004, RPC-R-007
        connect(RpcRdmaSettings.builder().credits(8));
        await(echo.nullCall(), 2);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(echo.nullCall());
        }
        int a = nextCall().xid();
        int b = nextCall().xid();
        assertThat(raw.receive(1)).isNull(); // grant 2
        raw.send(nullReply(a, 4)); // now 4: three more may go (one is still in flight)
        List<Integer> next = List.of(nextCall().xid(), nextCall().xid(), nextCall().xid());
        assertThat(raw.receive(1)).isNull();
        raw.send(nullReply(b, 1)); // now 1: nothing more until fewer than 1 are in flight
        assertThat(raw.receive(1)).isNull();
        for (int xid : next) {
            raw.send(nullReply(xid, 1));
        }
        raw.send(nullReply(nextCall().xid(), 1));
        for (CompletableFuture<Void> c : calls) {
            c.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReplyWithAReadListFailsTheCallWhenTheDraftIsOff() throws Exception { // RPC-R-047, RRC-R-015
        connect(RpcRdmaSettings.builder());
        CompletableFuture<Void> call = echo.nullCall();
        int xid = nextCall().xid();
        raw.send(concat(fixed(xid, 1, 4, 1), words(1, 0, 0x1234, 100, 0, 0, 0, 0, 0)));
        assertThat(cause(call)).isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("Read list");
    }

    @Test
    void aWriteChunkReturnedLongerThanProvidedFailsTheCall() throws Exception { // RPC-R-074
        connect(RpcRdmaSettings.builder());
        CompletableFuture<ByteBuf> call = echo.source(5000);
        RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) nextCall();
        WriteChunk provided = h.chunks().writeList().get(0);
        var seg = provided.segments().get(0);
        raw.send(concat(fixed(h.xid(), 1, 4, 0), words(0, 1, 1, seg.handle(), 6000, (int) (seg.offset() >>> 32),
                (int) seg.offset(), 0, 0), reply(h.xid(), words(6000))));
        assertThat(cause(call)).isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("Write chunk 0");
    }

    /**
     * ULB-R-021, RPC-R-051: a SOURCE whose result arm carries no data (an NFS READ that failed with
     * NFS4ERR_STALE, say) gets its provided 2-segment Write chunk back in either form: RFC 8267 §6.4.1's
     * empty Write chunk ({@code 1 0 0}: present, no segments, end of list) or RFC 8166 §4.3.2.2's
     * unused one (both segments, lengths 0). Either way the caller gets the upper layer's status.
     */
    @ParameterizedTest(name = "returned as RFC {0}''s form")
    @ValueSource(ints = {8267, 8166})
    void aWriteChunkReturnedEmptyOrUnusedForAResultWithoutDataGivesTheCallerItsStatus(int form) throws Exception {
        connect(RpcRdmaSettings.builder().maxSegmentSize(4096));
        CompletableFuture<String> call = sourceWithStatus(5000);
        RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) nextCall();
        WriteChunk provided = h.chunks().writeList().get(0);
        assertThat(provided.segments()).hasSize(2);
        byte[] writeList = form == 8267 ? words(1, 0, 0) : concat(words(1), returnedChunk(provided.withWritten(0)), words(0));
        raw.send(concat(fixed(h.xid(), 1, 4, 0), words(0), writeList, words(0), reply(h.xid(), words(NFS4ERR_STALE))));
        assertThat(call.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("status " + NFS4ERR_STALE);
    }

    /**
     * RPC-R-074 (RFC 8166 §6.1): a DDP-eligible result returned inline although its Write chunk was
     * available (the chunk comes back unused) ends the RPC with a permanent error, however short the
     * result. A result of 0 octets (a READ at end of file) has nothing to place, so it is fine inline.
     */
    @Test
    void aResultReturnedInlineInsteadOfIntoItsWriteChunkFailsTheCall() throws Exception {
        connect(RpcRdmaSettings.builder().maxSegmentSize(4096));
        CompletableFuture<String> inline = sourceWithStatus(5000);
        RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) nextCall();
        byte[] unused = concat(words(0, 1), returnedChunk(h.chunks().writeList().get(0).withWritten(0)), words(0, 0));
        raw.send(concat(fixed(h.xid(), 1, 4, 0), unused, reply(h.xid(), concat(words(0, 100), new byte[100]))));
        assertThat(cause(inline)).hasMessageContaining("inline").hasMessageContaining("Write chunk")
                .hasMessageContaining("RFC 8166 §6.1");

        CompletableFuture<String> empty = sourceWithStatus(5000);
        h = (RpcRdmaHeader.RdmaMsg) nextCall();
        unused = concat(words(0, 1), returnedChunk(h.chunks().writeList().get(0).withWritten(0)), words(0, 0));
        raw.send(concat(fixed(h.xid(), 1, 4, 0), unused, reply(h.xid(), words(0, 0))));
        assertThat(empty.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("0 octets");

        // No Write list at all (RFC 8166 §4.3.2.2 has the Responder return it): the chunk counts as
        // unused, so the inline result fails the call as above; a status without data still passes.
        CompletableFuture<String> noList = sourceWithStatus(5000);
        h = (RpcRdmaHeader.RdmaMsg) nextCall();
        raw.send(concat(fixed(h.xid(), 1, 4, 0), words(0, 0, 0), reply(h.xid(), concat(words(0, 100), new byte[100]))));
        assertThat(cause(noList)).hasMessageContaining("inline").hasMessageContaining("RFC 8166 §6.1");

        CompletableFuture<String> noListError = sourceWithStatus(5000);
        h = (RpcRdmaHeader.RdmaMsg) nextCall();
        raw.send(concat(fixed(h.xid(), 1, 4, 0), words(0, 0, 0), reply(h.xid(), words(NFS4ERR_STALE))));
        assertThat(noListError.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("status " + NFS4ERR_STALE);
    }

    /**
     * RPC-R-074 (RFC 8166 §6.1), thirteenth review item 3(b): a Write chunk the Responder returned
     * holding data (written with RDMA Write) while the result says 0 octets, or says an error
     * status with no result at all, moved data that belongs to no item of the Reply: the RPC fails
     * with a permanent error rather than dropping the data silently.
     */
    @Test
    void aWriteChunkReturnedFilledThatNoResultTookFailsTheCall() throws Exception {
        connect(RpcRdmaSettings.builder().maxSegmentSize(4096));
        CompletableFuture<String> zero = sourceWithStatus(5000);
        RpcRdmaHeader.RdmaMsg h = (RpcRdmaHeader.RdmaMsg) nextCall();
        write(h, 0, pattern(100, 0x33));
        byte[] filled = concat(words(0, 1), returnedChunk(h.chunks().writeList().get(0).withWritten(100)), words(0, 0));
        raw.send(concat(fixed(h.xid(), 1, 4, 0), filled, reply(h.xid(), words(0, 0))));
        assertThat(cause(zero)).hasMessageContaining("Write chunk returned holding 100 octets that no result took")
                .hasMessageContaining("RFC 8166 §6.1");

        CompletableFuture<String> error = sourceWithStatus(5000);
        h = (RpcRdmaHeader.RdmaMsg) nextCall();
        write(h, 0, pattern(100, 0x44));
        filled = concat(words(0, 1), returnedChunk(h.chunks().writeList().get(0).withWritten(100)), words(0, 0));
        raw.send(concat(fixed(h.xid(), 1, 4, 0), filled, reply(h.xid(), words(NFS4ERR_STALE))));
        assertThat(cause(error)).hasMessageContaining("no result took");
    }

    /** NFS4ERR_STALE (RFC 7530 §13.1.2.7): the status a failed READ of a removed file has. */
    private static final int NFS4ERR_STALE = 70;

    /**
     * SOURCE of {@code count} octets, its results read as a READ's are: a status word, then, if it is
     * 0, the DDP-eligible data. Completes with "status N" or "N octets".
     */
    private CompletableFuture<String> sourceWithStatus(int count) {
        return client.call(org.iwarp4j.oncrpc.sample.EchoProgram.PROGRAM, org.iwarp4j.oncrpc.sample.EchoProgram.VERSION,
                org.iwarp4j.oncrpc.sample.EchoProgram.PROC_SOURCE, args -> args.writeUnsignedInt(count), results -> {
                    int status = results.readInt();
                    if (status != 0) {
                        return "status " + status;
                    }
                    ByteBuf data = results.readDdpEligibleOpaque(1 << 20);
                    try {
                        return data.readableBytes() + " octets";
                    } finally {
                        data.release();
                    }
                });
    }

    /** A returned Write chunk in XDR: segment count, then each segment (handle, length, offset). */
    private static byte[] returnedChunk(WriteChunk chunk) {
        int[] w = new int[1 + 4 * chunk.segments().size()];
        w[0] = chunk.segments().size();
        for (int i = 0; i < chunk.segments().size(); i++) {
            RdmaSegment s = chunk.segments().get(i);
            w[1 + 4 * i] = s.handle();
            w[2 + 4 * i] = (int) s.length();
            w[3 + 4 * i] = (int) (s.offset() >>> 32);
            w[4 + 4 * i] = (int) s.offset();
        }
        return words(w);
    }

    /**
     * A Responder that says it filled a Write chunk it never wrote fails the Call, and never hands
     * the caller what the chunk's memory held before: here the previous SOURCE's result, which the
     * same kept buffer held (any connection's data, for a buffer fresh from the allocator).
     */
    @Test
    void aWriteChunkClaimedFilledButNeverWrittenFailsTheCallNotReturningEarlierData() throws Exception { // RPC-R-075
        connect(RpcRdmaSettings.builder());
        byte[] earlier = pattern(5000, 0x5A);
        CompletableFuture<ByteBuf> first = echo.source(5000);
        answerSource(nextCall(), earlier.length, 0, earlier);
        assertSourceReturned(first, earlier);

        CompletableFuture<ByteBuf> second = echo.source(5000);
        answerSource(nextCall(), 5000, 0, null);
        assertThat(cause(second)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("Write chunk 0 is returned as holding 5000 octets").hasMessageContaining("placed 0");
    }

    /**
     * Only what the Responder's RDMA Writes placed in order from a chunk's start may be claimed: a
     * chunk written in part, or written out of order, fails its Call; one filled by in-order
     * Writes, exactly as claimed, reaches the caller. Each on the same connection, one after another.
     */
    @Test
    void aWriteChunkIsReturnedOnlyAsFarAsTheResponderPlacedItInOrder() throws Exception { // RPC-R-075, RPC-R-074
        connect(RpcRdmaSettings.builder());
        byte[] data = pattern(5000, 0x11);

        CompletableFuture<ByteBuf> partly = echo.source(5000);
        answerSource(nextCall(), 5000, 0, Arrays.copyOf(data, 4999));
        assertThat(cause(partly)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("holding 5000 octets").hasMessageContaining("placed 4999");

        CompletableFuture<ByteBuf> outOfOrder = echo.source(5000);
        RpcRdmaHeader call = nextCall();
        write(call, 2500, Arrays.copyOfRange(data, 2500, 5000));
        answerSource(call, 5000, 0, Arrays.copyOf(data, 2500));
        assertThat(cause(outOfOrder)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("holding 5000 octets").hasMessageContaining("placed 2500");

        CompletableFuture<ByteBuf> inOrder = echo.source(5000);
        call = nextCall();
        write(call, 0, Arrays.copyOf(data, 2500));
        answerSource(call, 5000, 2500, Arrays.copyOfRange(data, 2500, 5000));
        assertSourceReturned(inOrder, data);

        CompletableFuture<ByteBuf> less = echo.source(5000);
        answerSource(nextCall(), 3000, 0, Arrays.copyOf(data, 4000));
        assertSourceReturned(less, Arrays.copyOf(data, 3000));
    }

    /**
     * The same for a Reply chunk: an RDMA_NOMSG Reply whose Payload stream the Responder wrote but
     * for its last octet fails its Call; written whole, the Reply reaches the caller.
     */
    @Test
    void aReplyChunkIsReturnedOnlyAsFarAsTheResponderPlacedIt() throws Exception { // RPC-R-075, RPC-R-074
        connect(RpcRdmaSettings.builder());
        byte[] data = pattern(6000, 0x21);

        CompletableFuture<ByteBuf> partly = echo.echo(Unpooled.wrappedBuffer(data));
        RpcRdmaHeader call = nextCall();
        byte[] stream = reply(call.xid(), concat(words(data.length), data));
        answerInReplyChunk(call, stream, stream.length - 1);
        assertThat(cause(partly)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("Reply chunk is returned as holding " + stream.length + " octets")
                .hasMessageContaining("placed " + (stream.length - 1));

        CompletableFuture<ByteBuf> whole = echo.echo(Unpooled.wrappedBuffer(data));
        call = nextCall();
        stream = reply(call.xid(), concat(words(data.length), data));
        answerInReplyChunk(call, stream, stream.length);
        assertSourceReturned(whole, data);
    }

    /**
     * Answers with an RDMA_NOMSG Reply whose Reply chunk is returned as holding {@code stream},
     * after RDMA Writing its first {@code placed} octets there (one region: the segments follow one
     * another from its start).
     */
    private void answerInReplyChunk(RpcRdmaHeader call, byte[] stream, int placed) throws Exception {
        ChunkLists lists = call instanceof RpcRdmaHeader.RdmaMsg m ? m.chunks() : ((RpcRdmaHeader.RdmaNomsg) call).chunks();
        WriteChunk provided = lists.replyChunk().orElseThrow();
        RdmaSegment first = provided.segments().get(0);
        raw.write(Arrays.copyOf(stream, placed), first.handle(), first.offset());
        // No Read list, no Write list, the Reply chunk.
        raw.send(concat(fixed(call.xid(), 1, 4, 1), words(0, 0, 1), returnedChunk(provided.withWritten(stream.length))));
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed + i);
        }
        return b;
    }

    private static void assertSourceReturned(CompletableFuture<ByteBuf> source, byte[] expected) throws Exception {
        ByteBuf data = source.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertThat(ByteBufUtil.getBytes(data)).isEqualTo(expected);
        } finally {
            data.release();
        }
    }

    /** RDMA Writes {@code octets} into a SOURCE Call's Write chunk, {@code at} octets from its start. */
    private void write(RpcRdmaHeader call, int at, byte[] octets) throws Exception {
        RdmaSegment seg = ((RpcRdmaHeader.RdmaMsg) call).chunks().writeList().get(0).segments().get(0);
        raw.write(octets, seg.handle(), seg.offset() + at);
    }

    /**
     * Answers a SOURCE Call with its Write chunk returned as holding {@code claimed} octets, RDMA
     * Writing {@code octets} {@code at} octets from its start first unless they are {@code null}.
     */
    private void answerSource(RpcRdmaHeader call, int claimed, int at, byte[] octets) throws Exception {
        RdmaSegment seg = ((RpcRdmaHeader.RdmaMsg) call).chunks().writeList().get(0).segments().get(0);
        if (octets != null) {
            write(call, at, octets);
        }
        raw.send(concat(fixed(call.xid(), 1, 4, 0), words(0, 1, 1, seg.handle(), claimed, (int) (seg.offset() >>> 32),
                (int) seg.offset(), 0, 0), reply(call.xid(), words(claimed))));
    }

    @Test
    void aCancelledCallKeepsItsCreditUntilItsReplyArrives() throws Exception { // RPC-R-057, RPC-R-003
        connect(RpcRdmaSettings.builder().credits(2));
        await(echo.nullCall(), 2);
        // Cancel at the transport, as RpcClient does on a timeout.
        int abandonedXid = 0x7777;
        CompletableFuture<org.iwarp4j.oncrpc.XdrMessage> abandoned = requester.call(
                new org.iwarp4j.oncrpc.RpcCallInfo(abandonedXid, org.iwarp4j.oncrpc.sample.EchoProgram.PROGRAM, 1, 0),
                org.iwarp4j.oncrpc.XdrMessage.of(Unpooled.wrappedBuffer(
                        Messages.echoCall(abandonedXid, 0, new byte[0]))));
        int xid = nextCall().xid();
        assertThat(xid).isEqualTo(abandonedXid);
        abandoned.cancel(false);
        CompletableFuture<Void> second = echo.nullCall();
        int secondXid = nextCall().xid();
        CompletableFuture<Void> third = echo.nullCall();
        assertThat(raw.receive(1)).as("the abandoned Call still holds one of the two credits").isNull();
        raw.send(nullReply(xid, 2)); // its late Reply: dropped, and the credit comes back
        raw.send(nullReply(nextCall().xid(), 2));
        raw.send(nullReply(secondXid, 2));
        second.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        third.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(requester.unknownXidReplies()).isZero();
        assertThat(requester.connections()).isEqualTo(1);
    }

    /** Answers the Call {@code f} started with a NULL Reply granting {@code credits}. */
    private void await(CompletableFuture<Void> f, int credits) throws Exception {
        raw.send(nullReply(nextCall().xid(), credits));
        f.get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
