package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's call encoding and its mapping of every reply (RFC 5531 §9) to a result or an exception. */
class RpcClientTest {

    private static final int PROG = 0x20000077;

    private final RpcDispatcher dispatcher = new RpcDispatcher()
            .register(RpcProgram.builder(PROG, 2)
                    .procedure(1, RpcProcedure.of((ctx, args, results) -> results.writeInt(args.readInt() * 2)))
                    .procedure(2, RpcProcedure.of((ctx, args, results) -> {
                        throw new IllegalStateException("bug");
                    }))
                    .procedure(3, RpcProcedure.of((ctx, args, results) ->
                            results.writeString(ctx.authSysCredential().map(AuthSys::machineName).orElse("none"), 255)))
                    .build())
            .register(RpcProgram.builder(PROG, 3).build());

    /** A transport that records the calls and answers with {@code reply(call octets)}. */
    private static class CannedTransport implements RpcClientTransport {
        final List<String> calls = new ArrayList<>();
        final List<CompletableFuture<XdrMessage>> futures = new ArrayList<>();
        final Function<byte[], String> reply;

        CannedTransport(Function<byte[], String> reply) {
            this.reply = reply;
        }

        @Override
        public synchronized CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            ByteBuf stream = call.stream();
            byte[] octets = ByteBufUtil.getBytes(stream);
            stream.release();
            call.release();
            calls.add(Hex.encode(octets));
            String answer = reply.apply(octets);
            CompletableFuture<XdrMessage> f = answer == null ? new CompletableFuture<>()
                    : CompletableFuture.completedFuture(XdrMessage.of(Unpooled.wrappedBuffer(Hex.decode(answer))));
            futures.add(f);
            return f;
        }

        @Override
        public String name() {
            return "canned";
        }

        @Override
        public synchronized String state() {
            return calls.size() + " calls seen";
        }

        @Override
        public void close() {
        }
    }

    private static String xid(byte[] call) {
        return Hex.encode(java.util.Arrays.copyOf(call, 4));
    }

    private static Throwable failure(CompletableFuture<?> f) {
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        return f.handle((r, e) -> e).join();
    }

    /**
     * A transport whose Reply carries {@code results} inline and these reduced items (as an
     * RPC-over-RDMA Requester delivers Write chunks the Responder returned filled or empty).
     */
    private static RpcClientTransport replyingWithReducedItems(String results, byte[]... items) {
        return new RpcClientTransport() {
            @Override
            public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
                call.release();
                String header = String.format("%08x", info.xid()) + "00000001 00000000 00000000 00000000 00000000";
                List<ByteBuf> reduced = new ArrayList<>();
                for (byte[] item : items) {
                    reduced.add(Unpooled.wrappedBuffer(item));
                }
                return CompletableFuture.completedFuture(XdrMessage.ofReduced(
                        List.of(XdrPiece.inline(Unpooled.wrappedBuffer(Hex.decode(header + results)))), reduced));
            }

            @Override
            public String name() {
                return "reduced";
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * RPC-R-074 (RFC 8166 §6.1): a Write chunk returned holding data that no result took fails the
     * call once the results are decoded, and the value decoded is given back (a ByteBuf released,
     * else the discard given); with nothing left over the value is delivered.
     */
    @Test
    void aFilledWriteChunkNoResultTookFailsTheCallAndGivesTheValueBack() throws Exception {
        RpcClient left = RpcClient.builder(replyingWithReducedItems("00000002", new byte[] {8, 9}, new byte[] {7}))
                .build();
        ByteBuf[] decoded = new ByteBuf[1];
        CompletableFuture<ByteBuf> call = left.call(PROG, 2, 1, args -> { }, in -> {
            decoded[0] = in.readDdpEligibleOpaque(16);
            return decoded[0];
        });
        assertThat(failure(call)).hasRootCauseInstanceOf(XdrException.class)
                .hasMessageContaining("Write chunk returned holding 1 octets that no result took")
                .hasMessageContaining("RFC 8166 §6.1");
        assertThat(decoded[0].refCnt()).as("the decoded data was released").isZero();

        List<String> discarded = new ArrayList<>();
        CompletableFuture<String> withDiscard = left.call(PROG, 2, 1, args -> { }, in -> {
            ByteBuf data = in.readDdpEligibleOpaque(16);
            data.release();
            return "value";
        }, discarded::add);
        assertThat(failure(withDiscard)).hasRootCauseInstanceOf(XdrException.class);
        assertThat(discarded).containsExactly("value");

        // A status without data (length word 0) while the chunk came back filled: the same.
        RpcClient zero = RpcClient.builder(replyingWithReducedItems("00000000", new byte[] {8, 9})).build();
        assertThat(failure(zero.call(PROG, 2, 1, args -> { }, in -> {
            in.readDdpEligibleOpaque(16).release();
            return "0 octets";
        }))).hasRootCauseInstanceOf(XdrException.class);

        // Chunks returned empty, or every filled one taken: delivered.
        RpcClient clean = RpcClient.builder(replyingWithReducedItems("00000002", new byte[0], new byte[] {8, 9},
                new byte[0])).build();
        assertThat(clean.call(PROG, 2, 1, args -> { }, in -> {
            ByteBuf data = in.readDdpEligibleOpaque(16);
            try {
                return data.readableBytes();
            } finally {
                data.release();
            }
        }).get(5, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void callsAndDecodesResults() throws Exception {
        RpcClient client = RpcClient.builder(new DispatcherTransport(dispatcher)).build();
        int doubled = client.call(PROG, 2, 1, args -> args.writeInt(21), XdrDecoder::readInt).get(5, TimeUnit.SECONDS);
        assertThat(doubled).isEqualTo(42);
        try (RpcReply reply = client.call(PROG, 2, 1, args -> args.writeInt(5)).get(5, TimeUnit.SECONDS)) {
            assertThat(reply.verifier()).isEqualTo(OpaqueAuth.NONE);
            assertThat(reply.results().readInt()).isEqualTo(10);
            assertThat(reply.results().isEmpty()).isTrue();
        }
    }

    @Test
    void callHeaderCarriesConsecutiveXidsAndTheAuthSysCredential() throws Exception {
        CannedTransport transport = new CannedTransport(call -> xid(call) + "00000001 00000000 00000000 00000000 00000000");
        AuthSys sys = new AuthSys(7, "h", 0, 0, new int[0]);
        RpcClient client = RpcClient.builder(transport).credential(sys).build();
        client.call(PROG, 2, 9, args -> args.writeInt(0x0a0b0c0d)).get(5, TimeUnit.SECONDS).close();
        client.call(PROG, 2, 9, args -> { }).get(5, TimeUnit.SECONDS).close();
        String first = transport.calls.get(0);
        String second = transport.calls.get(1);
        // AUTH_SYS, 24 octets: stamp 7, machinename "h" + 3 pad, uid 0, gid 0, no gids
        String cred = "00000001 00000018 00000007 00000001 68000000 00000000 00000000 00000000";
        assertThat(first.substring(8)).isEqualTo(XdrBytes.plain(
                "00000000 00000002 20000077 00000002 00000009 " + cred + " 00000000 00000000 0a0b0c0d"));
        assertThat(Integer.parseUnsignedInt(second.substring(0, 8), 16))
                .isEqualTo(Integer.parseUnsignedInt(first.substring(0, 8), 16) + 1);
    }

    @Test
    void authSysReachesTheServer() throws Exception {
        RpcClient client = RpcClient.builder(new DispatcherTransport(dispatcher))
                .credential(new AuthSys(1, "client.example", 1000, 1000, new int[] {1, 2, 3})).build();
        assertThat(client.call(PROG, 2, 3, args -> { }, r -> r.readString(255)).get(5, TimeUnit.SECONDS))
                .isEqualTo("client.example");
    }

    @Test
    void acceptedErrorsBecomeExceptions() {
        RpcClient client = RpcClient.builder(new DispatcherTransport(dispatcher)).build();
        assertThat(failure(client.call(PROG + 1, 2, 1, args -> { }))).isInstanceOf(RpcProgramUnavailableException.class);
        Throwable mismatch = failure(client.call(PROG, 7, 1, args -> { }));
        assertThat(mismatch).isInstanceOf(RpcProgramMismatchException.class);
        assertThat(((RpcProgramMismatchException) mismatch).low()).isEqualTo(2);
        assertThat(((RpcProgramMismatchException) mismatch).high()).isEqualTo(3);
        assertThat(failure(client.call(PROG, 2, 99, args -> { }))).isInstanceOf(RpcProcedureUnavailableException.class);
        assertThat(failure(client.call(PROG, 2, 1, args -> { }))).isInstanceOf(RpcGarbageArgsException.class);
        assertThat(failure(client.call(PROG, 2, 2, args -> { }))).isInstanceOf(RpcSystemErrorException.class);
    }

    @Test
    void deniedRepliesBecomeExceptions() {
        RpcClient dh = RpcClient.builder(new DispatcherTransport(dispatcher))
                .credential(new OpaqueAuth(RpcConstants.AUTH_DH, new byte[8])).build();
        Throwable auth = failure(dh.call(PROG, 2, 1, args -> args.writeInt(1)));
        assertThat(auth).isInstanceOf(RpcAuthException.class);
        assertThat(((RpcAuthException) auth).stat()).isEqualTo(AuthStat.AUTH_BADCRED);

        RpcClient old = RpcClient.builder(new CannedTransport(call -> xid(call)
                + "00000001 00000001 00000000 00000003 00000004")).build();
        Throwable rpcMismatch = failure(old.call(PROG, 2, 1, args -> { }));
        assertThat(rpcMismatch).isInstanceOf(RpcMismatchException.class);
        assertThat(((RpcMismatchException) rpcMismatch).low()).isEqualTo(3);
        assertThat(((RpcMismatchException) rpcMismatch).high()).isEqualTo(4);

        RpcClient odd = RpcClient.builder(new CannedTransport(call -> xid(call)
                + "00000001 00000001 00000001 00000063")).build();
        Throwable unnamed = failure(odd.call(PROG, 2, 1, args -> { }));
        assertThat(((RpcAuthException) unnamed).code()).isEqualTo(99);
        assertThat(((RpcAuthException) unnamed).stat()).isNull();
    }

    @Test
    void malformedOrMismatchedRepliesAreProtocolErrors() {
        RpcClient wrongXid = RpcClient.builder(new CannedTransport(call -> "deadbeef 00000001 00000000 00000000 00000000 00000000")).build();
        assertThat(failure(wrongXid.call(PROG, 2, 1, args -> { }))).isInstanceOf(RpcProtocolException.class)
                .hasMessageContaining("deadbeef");
        RpcClient truncated = RpcClient.builder(new CannedTransport(call -> xid(call) + "00000001 00000000")).build();
        assertThat(failure(truncated.call(PROG, 2, 1, args -> { }))).isInstanceOf(RpcProtocolException.class);
    }

    @Test
    void noReplyWithinTheTimeoutIsRpcTimeoutAndTheTransportForgetsTheXid() {
        CannedTransport silent = new CannedTransport(call -> null);
        RpcClient client = RpcClient.builder(silent).timeout(Duration.ofMillis(50)).build();
        CompletableFuture<RpcReply> call = client.call(PROG, 2, 1, args -> { });
        assertThat(failure(call)).isInstanceOf(RpcTimeoutException.class).hasMessageContaining("50 ms")
                .as("what the transport said of itself at the timeout").hasMessageEndingWith("(1 calls seen)");
        assertThat(silent.futures.get(0)).isCancelled();
    }

    @Test
    void aTransportThatCannotDescribeItselfStillTimesOut() {
        CannedTransport broken = new CannedTransport(call -> null) {
            @Override
            public synchronized String state() {
                throw new IllegalStateException("no state");
            }
        };
        RpcClient client = RpcClient.builder(broken).timeout(Duration.ofMillis(50)).build();
        assertThat(failure(client.call(PROG, 2, 1, args -> { }))).isInstanceOf(RpcTimeoutException.class)
                .hasMessageContaining("50 ms").hasMessageContaining("no state");
        assertThat(broken.futures.get(0)).isCancelled();
    }

    @Test
    void cancellingADecodedCallCancelsTheTransportCall() {
        CannedTransport silent = new CannedTransport(call -> null);
        RpcClient client = RpcClient.builder(silent).build();
        CompletableFuture<Integer> call = client.call(PROG, 2, 1, args -> { }, XdrDecoder::readInt);
        assertThat(call.cancel(false)).isTrue();
        // The transport forgets the xid, so a late reply is dropped (and released) by the transport.
        assertThat(silent.futures.get(0)).isCancelled();
    }

    @Test
    void transportFailuresAreRpcTransportExceptions() {
        DispatcherTransport transport = new DispatcherTransport(dispatcher);
        transport.close();
        RpcClient client = RpcClient.builder(transport).build();
        assertThat(failure(client.call(PROG, 2, 1, args -> args.writeInt(1)))).isInstanceOf(RpcTransportException.class);
        RpcClient broken = RpcClient.builder(new CannedTransport(call -> {
            throw new IllegalStateException("boom");
        })).build();
        assertThat(failure(broken.call(PROG, 2, 1, args -> { }))).isInstanceOf(RpcTransportException.class)
                .hasMessageContaining("boom");
    }

    @Test
    void argumentsThatCannotBeEncodedFailTheCallAndAreReleased() {
        RpcClient client = RpcClient.builder(new DispatcherTransport(dispatcher)).build();
        ByteBuf data = Unpooled.buffer().writeZero(8);
        assertThat(failure(client.call(PROG, 2, 1, args -> args.writeOpaque(data, 4)))).isInstanceOf(XdrException.class);
        assertThat(data.refCnt()).isZero();
    }
}
