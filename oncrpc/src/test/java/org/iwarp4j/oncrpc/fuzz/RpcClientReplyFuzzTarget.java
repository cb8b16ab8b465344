package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.oncrpc.internal.RpcReplyHeader;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for what the ONC RPC client does with a server's reply (RFC 5531 §9): {@link
 * RpcReplyHeader#decode} and, on {@link RpcClient}'s own call path, the xid check, accepted or
 * denied, the verifier, PROG_MISMATCH's and RPC_MISMATCH's version ranges, AUTH_ERROR's auth_stat
 * and the results handed to a results decoder. A transport answers every call at once with the
 * input. Input layout: octet 0 = options: bit 0 keeps the reply's own xid (otherwise the transport
 * writes the call's xid over the first four octets, so that the rest of the header is reached), bit
 * 1 has the call decode its results (an {@code opaque<64>} read as DDP-eligible), bit 2 delivers
 * the reply as a reduced stream whose last four octets (or fewer) are its reduced data item (RFC
 * 8166 §3.4.6); then the reply message, from the xid on. Seeds: the first reply to each procedure
 * on each connection of the Linux NFS-over-RDMA capture in {@code testdata/captures/} (those sent
 * in Reply chunks put together from the RDMA Writes), and replies the project's encoder writes:
 * every accept_stat and reject_stat, a verifier with a body, unknown stats, a CALL, a short header,
 * results inline and reduced ({@code enc-*}, {@link RpcClientReplySeedsTest}).
 *
 * <p>Properties: the call's future is complete when {@code call} returns (the reply came at once);
 * it fails only with an exception {@link RpcClient} documents for a reply, and with exactly the one
 * a literal reading of RFC 5531 §9 expects of these octets ({@link ExpectedReply}), the version
 * range and auth_stat included; a successful reply carries the octets' verifier, and its results
 * start right after the header; once the caller has closed the reply (or released what its results
 * decoder returned), nothing allocated for the call or the reply is held.
 */
class RpcClientReplyFuzzTarget {

    private static final int PROGRAM = 100003;
    private static final int VERSION = 3;

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) throws InterruptedException {
        if (input.length < 1) {
            return;
        }
        int options = input[0];
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        AnsweringTransport transport = new AnsweringTransport(alloc, input, (options & 1) == 0, (options & 4) != 0);
        RpcClient client = RpcClient.builder(transport).timeout(Duration.ofSeconds(30)).build();
        if ((options & 2) != 0) {
            CompletableFuture<ByteBuf> results = client.call(PROGRAM, VERSION, 1, out -> { },
                    in -> in.readDdpEligibleOpaque(64));
            assertThat(results).as("answered at once").isDone();
            Outcome<ByteBuf> outcome = outcome(results);
            ExpectedReply expected = ExpectedReply.of(transport.reply, transport.xid);
            if (outcome.value != null) {
                assertThat(expected.failure()).as("the reply fails the call").isNull();
                assertThat(outcome.value.readableBytes()).isLessThanOrEqualTo(64);
                outcome.value.release();
            } else if (expected.failure() == null) {
                assertThat(outcome.error).as("only the results decoder can fail").isInstanceOf(XdrException.class);
            } else {
                expected.check(outcome.error);
            }
        } else {
            CompletableFuture<RpcReply> reply = client.call(PROGRAM, VERSION, 1, out -> { });
            assertThat(reply).as("answered at once").isDone();
            Outcome<RpcReply> outcome = outcome(reply);
            ExpectedReply expected = ExpectedReply.of(transport.reply, transport.xid);
            if (outcome.value != null) {
                try (RpcReply r = outcome.value) {
                    assertThat(expected.failure()).as("the reply fails the call").isNull();
                    assertThat(r.xid()).isEqualTo(transport.xid);
                    assertThat(r.verifier()).isEqualTo(expected.verifier());
                    assertThat(r.results().buffer().readerIndex()).as("results right after the header")
                            .isEqualTo(expected.headerLength());
                }
            } else {
                expected.check(outcome.error);
            }
        }
        client.close();
        FuzzInput.assertNothingHeld(alloc);
    }

    private record Outcome<T>(T value, Throwable error) {
    }

    private static <T> Outcome<T> outcome(CompletableFuture<T> future) throws InterruptedException {
        try {
            return new Outcome<>(future.get(10, TimeUnit.SECONDS), null);
        } catch (ExecutionException e) {
            return new Outcome<>(null, e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("a completed future did not answer within 10 s", e);
        }
    }

    /**
     * Answers every call with the fuzz input after its options octet, allocated like the call
     * from the input's own counting allocator; releases the call as a transport must.
     */
    private static final class AnsweringTransport implements RpcClientTransport {
        private final UnpooledByteBufAllocator alloc;
        private final byte[] input;
        private final boolean callersXid;
        private final boolean reduced;
        /** The reply as the client got it (its xid possibly replaced), and the call's xid. */
        byte[] reply;
        int xid;

        AnsweringTransport(UnpooledByteBufAllocator alloc, byte[] input, boolean callersXid, boolean reduced) {
            this.alloc = alloc;
            this.input = input;
            this.callersXid = callersXid;
            this.reduced = reduced;
        }

        @Override
        public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            call.release();
            xid = info.xid();
            reply = java.util.Arrays.copyOfRange(input, 1, input.length);
            if (callersXid && reply.length >= 4) {
                for (int i = 0; i < 4; i++) {
                    reply[i] = (byte) (xid >>> (24 - 8 * i));
                }
            }
            if (!reduced) {
                return CompletableFuture.completedFuture(XdrMessage.of(alloc.buffer(reply.length).writeBytes(reply)));
            }
            int itemLength = Math.min(4, reply.length);
            int streamLength = reply.length - itemLength;
            ByteBuf stream = alloc.buffer(streamLength).writeBytes(reply, 0, streamLength);
            ByteBuf item = alloc.buffer(itemLength).writeBytes(reply, streamLength, itemLength);
            // What the client reads is the stream; the item is only taken by a DDP-eligible read.
            reply = java.util.Arrays.copyOf(reply, streamLength);
            return CompletableFuture.completedFuture(XdrMessage.ofReduced(List.of(XdrPiece.inline(stream)),
                    List.of(item)));
        }

        @Override
        public String name() {
            return "fuzz";
        }

        @Override
        public ByteBufAllocator alloc() {
            return alloc;
        }

        @Override
        public void close() {
        }
    }
}
