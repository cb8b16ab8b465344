package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every reply the dispatcher can give (RFC 5531 §9), checked as octets: the call is built by
 * hand, the reply compared with the layout the RFC gives.
 */
class RpcDispatcherTest {

    private static final int PROG = 0x20000099;
    private static final String AUTH_NONE = "00000000 00000000";
    /** xid 1, REPLY, MSG_ACCEPTED, AUTH_NONE verifier. */
    private static final String ACCEPTED = "00000001 00000001 00000000 00000000 00000000";
    /** xid 1, REPLY, MSG_DENIED. */
    private static final String DENIED = "00000001 00000001 00000001";
    private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.1", 700);

    private final AtomicReference<RpcCallContext> lastContext = new AtomicReference<>();
    private final CompletableFuture<XdrMessage> pending = new CompletableFuture<>();

    private final RpcDispatcher dispatcher = new RpcDispatcher()
            .register(RpcProgram.builder(PROG, 2)
                    .procedure(1, RpcProcedure.of((ctx, args, results) -> { // ADD(int, int) -> int
                        lastContext.set(ctx);
                        results.writeInt(args.readInt() + args.readInt());
                    }))
                    .procedure(2, (ctx, args) -> CompletableFuture.failedFuture(new RpcGarbageArgsException("bad")))
                    .procedure(3, RpcProcedure.of((ctx, args, results) -> {
                        throw new IllegalStateException("procedure bug");
                    }))
                    .procedure(4, (ctx, args) -> CompletableFuture.failedFuture(new OutOfMemoryError("test")))
                    .procedure(5, (ctx, args) -> null)
                    .procedure(6, RpcProcedure.of((ctx, args, results) -> {
                        throw new RpcAuthException("root only", AuthStat.AUTH_TOOWEAK);
                    }))
                    .procedure(7, RpcProcedure.of((ctx, args, results) -> {
                        throw new RpcProcedureUnavailableException("not today");
                    }))
                    .procedure(8, (ctx, args) -> pending)
                    .build())
            .register(RpcProgram.builder(PROG, 4).build());

    private static String call(int rpcvers, int prog, int vers, int proc, String credAndVerf, String args) {
        return String.format("00000001 00000000 %08x %08x %08x %08x ", rpcvers, prog, vers, proc) + credAndVerf + " " + args;
    }

    private static String call(int proc, String args) {
        return call(2, PROG, 2, proc, AUTH_NONE + " " + AUTH_NONE, args);
    }

    private String dispatch(String callHex) throws Exception {
        XdrMessage reply = dispatcher.dispatch(XdrBytes.message(callHex),
                RpcTransportInfo.of("test", null, PEER)).get(5, TimeUnit.SECONDS);
        try {
            return XdrBytes.hex(reply);
        } finally {
            reply.release();
        }
    }

    private static String hex(String spaced) {
        return XdrBytes.plain(spaced);
    }

    @Test
    void successCarriesTheResultsAfterTheHeader() throws Exception {
        assertThat(dispatch(call(1, "00000002 00000003"))).isEqualTo(hex(ACCEPTED + "00000000 00000005"));
        RpcCallContext ctx = lastContext.get();
        assertThat(ctx.call()).isEqualTo(new RpcCallInfo(1, PROG, 2, 1));
        assertThat(ctx.transport().name()).isEqualTo("test");
        assertThat(ctx.transport().remoteAddress()).isEqualTo(PEER);
        assertThat(ctx.authSysCredential()).isEmpty();
    }

    @Test
    void nullProcedureIsThereByDefault() throws Exception {
        assertThat(dispatch(call(0, ""))).isEqualTo(hex(ACCEPTED + "00000000"));
    }

    @Test
    void authSysCredentialIsParsedForTheProcedure() throws Exception {
        AuthSys sys = new AuthSys(42, "client.example", 1000, 100, new int[] {10, 20});
        byte[] body = sys.toOpaqueAuth().body();
        String cred = String.format("00000001 %08x %s", body.length, Hex.encode(body));
        assertThat(dispatch(call(2, PROG, 2, 1, cred + " " + AUTH_NONE, "00000001 00000001")))
                .isEqualTo(hex(ACCEPTED + "00000000 00000002"));
        assertThat(lastContext.get().authSys()).isEqualTo(sys);
        assertThat(lastContext.get().credential().flavor()).isEqualTo(RpcConstants.AUTH_SYS);
    }

    @Test
    void unknownProgramIsProgUnavail() throws Exception {
        assertThat(dispatch(call(2, PROG + 1, 2, 1, AUTH_NONE + " " + AUTH_NONE, "")))
                .isEqualTo(hex(ACCEPTED + "00000001"));
    }

    @Test
    void unknownVersionIsProgMismatchWithLowestAndHighest() throws Exception {
        assertThat(dispatch(call(2, PROG, 3, 1, AUTH_NONE + " " + AUTH_NONE, "")))
                .isEqualTo(hex(ACCEPTED + "00000002 00000002 00000004"));
        assertThat(dispatch(call(2, PROG, 0xFFFFFFFF, 1, AUTH_NONE + " " + AUTH_NONE, "")))
                .as("versions compare unsigned").isEqualTo(hex(ACCEPTED + "00000002 00000002 00000004"));
    }

    @Test
    void unknownProcedureIsProcUnavail() throws Exception {
        assertThat(dispatch(call(99, ""))).isEqualTo(hex(ACCEPTED + "00000003"));
        assertThat(dispatch(call(7, ""))).as("thrown by the procedure").isEqualTo(hex(ACCEPTED + "00000003"));
    }

    @Test
    void argumentsThatDoNotDecodeAreGarbageArgs() throws Exception {
        assertThat(dispatch(call(1, "00000002"))).as("XdrException: second int missing")
                .isEqualTo(hex(ACCEPTED + "00000004"));
        assertThat(dispatch(call(2, ""))).as("RpcGarbageArgsException, asynchronously")
                .isEqualTo(hex(ACCEPTED + "00000004"));
    }

    @Test
    void procedureFailuresAreSystemErr() throws Exception {
        assertThat(dispatch(call(3, ""))).as("thrown").isEqualTo(hex(ACCEPTED + "00000005"));
        assertThat(dispatch(call(4, ""))).as("failed stage").isEqualTo(hex(ACCEPTED + "00000005"));
        assertThat(dispatch(call(5, ""))).as("null stage").isEqualTo(hex(ACCEPTED + "00000005"));
    }

    /**
     * A client that repeats a call that makes the program fail gets SYSTEM_ERR every time, but the
     * server warns of it at most SYSTEM_ERR_LOG_BURST times per interval (the clock here stands
     * still): the rest are held back, so a loop of such calls cannot fill the log.
     */
    @Test
    void repeatedSystemErrRepliesAreWarnedOfAtMostTheBurstPerInterval() throws Exception {
        RpcDispatcher frozen = new RpcDispatcher(null, () -> 0L).register(RpcProgram.builder(PROG, 2)
                .procedure(3, RpcProcedure.of((ctx, args, results) -> {
                    throw new IllegalStateException("procedure bug");
                })).build());
        int calls = RpcDispatcher.SYSTEM_ERR_LOG_BURST + 3;
        for (int i = 0; i < calls; i++) {
            XdrMessage reply = frozen.dispatch(XdrBytes.message(call(3, "")), RpcTransportInfo.of("test", null, PEER))
                    .get(5, TimeUnit.SECONDS);
            try {
                assertThat(XdrBytes.hex(reply)).as("call %d", i).isEqualTo(hex(ACCEPTED + "00000005"));
            } finally {
                reply.release();
            }
        }
        assertThat(frozen.systemErrLog().heldTotal()).isEqualTo(3);
    }

    @Test
    void rpcVersionOtherThanTwoIsRpcMismatch() throws Exception {
        assertThat(dispatch(call(3, PROG, 2, 1, AUTH_NONE + " " + AUTH_NONE, "")))
                .isEqualTo(hex(DENIED + "00000000 00000002 00000002"));
        assertThat(dispatch("00000001 00000000 00000001")).as("even without the rest of the header")
                .isEqualTo(hex(DENIED + "00000000 00000002 00000002"));
    }

    @Test
    void unsupportedOrMalformedCredentialsAreAuthBadcred() throws Exception {
        String badcred = hex(DENIED + "00000001 00000001");
        assertThat(dispatch(call(2, PROG, 2, 1, "00000003 00000004 01020304 " + AUTH_NONE, "")))
                .as("AUTH_DH is not supported").isEqualTo(badcred);
        assertThat(dispatch(call(2, PROG, 2, 1, "00000000 00000004 01020304 " + AUTH_NONE, "")))
                .as("AUTH_NONE with a body").isEqualTo(badcred);
        assertThat(dispatch(call(2, PROG, 2, 1, "00000001 00000004 01020304 " + AUTH_NONE, "")))
                .as("truncated authsys_parms").isEqualTo(badcred);
        assertThat(dispatch(call(2, PROG, 2, 1, "00000001 00000191 " + "00".repeat(401) + "000000 " + AUTH_NONE, "")))
                .as("opaque_auth body of 401 octets").isEqualTo(badcred);
        String seventeenGids = "00000000 00000000 00000000 00000000 00000011" + " 00000000".repeat(17);
        assertThat(dispatch(call(2, PROG, 2, 1, String.format("00000001 %08x ", 20 + 68) + seventeenGids
                + " " + AUTH_NONE, ""))).as("17 gids").isEqualTo(badcred);
    }

    @Test
    void badVerifiersAreAuthBadverf() throws Exception {
        String badverf = hex(DENIED + "00000001 00000003");
        assertThat(dispatch(call(2, PROG, 2, 1, AUTH_NONE + " 00000001 00000000", "")))
                .as("AUTH_SYS verifier").isEqualTo(badverf);
        assertThat(dispatch(call(2, PROG, 2, 1, AUTH_NONE + " 00000000 00000004", "")))
                .as("truncated verifier").isEqualTo(badverf);
    }

    @Test
    void procedureMayDenyWithAnAuthStat() throws Exception {
        assertThat(dispatch(call(6, ""))).isEqualTo(hex(DENIED + "00000001 00000005"));
    }

    @Test
    void messagesThatCannotBeAnsweredAreDropped() {
        for (String hex : new String[] {
                "00000001 00000001 00000000 00000000 00000000 00000000", // a REPLY
                "00000001 00000000",                                      // no rpcvers
                "00000001 00000000 00000002 00000001 00000002"}) {        // truncated before the credential
            CompletableFuture<XdrMessage> reply = dispatcher.dispatch(XdrBytes.message(hex),
                    RpcTransportInfo.of("test", null, PEER));
            assertThatThrownBy(() -> reply.get(5, TimeUnit.SECONDS)).as(hex)
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RpcProtocolException.class);
        }
    }

    @Test
    void theCallIsReleasedWhenTheProcedureCompletesNotBefore() throws Exception {
        ByteBuf call = Unpooled.wrappedBuffer(Hex.decode(call(8, "")));
        CompletableFuture<XdrMessage> reply = dispatcher.dispatch(XdrMessage.of(call),
                RpcTransportInfo.of("test", null, PEER));
        assertThat(reply).isNotDone();
        assertThat(call.refCnt()).isPositive();
        pending.complete(XdrEncoder.create().writeInt(9).toMessage());
        XdrMessage r = reply.get(5, TimeUnit.SECONDS);
        assertThat(XdrBytes.hex(r)).isEqualTo(hex(ACCEPTED + "00000000 00000009"));
        r.release();
        assertThat(call.refCnt()).isZero();
    }

    @Test
    void unregisteredProgramIsUnavailableAgain() throws Exception {
        assertThat(dispatcher.unregister(PROG, 2)).isTrue();
        assertThat(dispatcher.unregister(PROG, 4)).isTrue();
        assertThat(dispatch(call(1, ""))).isEqualTo(hex(ACCEPTED + "00000001"));
    }

    @Test
    void ddpEligibleResultsKeepTheirFlagBehindTheReplyHeader() throws Exception {
        RpcDispatcher d = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, RpcProcedure.of((ctx, args, results) ->
                        results.writeDdpEligibleOpaque(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}), 16)))
                .build());
        XdrMessage reply = d.dispatch(XdrBytes.message(call(2, PROG, 1, 1, AUTH_NONE + " " + AUTH_NONE, "")),
                RpcTransportInfo.of("test", null, PEER)).get(5, TimeUnit.SECONDS);
        try {
            assertThat(reply.pieces()).extracting(XdrPiece::ddpEligible).containsExactly(false, false, true);
            assertThat(reply.position(2)).isEqualTo(28); // 24-octet accepted header + length word
            assertThat(XdrBytes.hex(reply)).isEqualTo(hex(ACCEPTED + "00000000 00000003 01020300"));
        } finally {
            reply.release();
        }
    }

    @Test
    void repliesAndDropsAreCounted() throws Exception {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        RpcDispatcher counted = new RpcDispatcher(registry).register(RpcProgram.builder(PROG, 2).build());
        RpcTransportInfo info = RpcTransportInfo.of("test", null, PEER);
        counted.dispatch(XdrBytes.message(call(0, "")), info).get(5, TimeUnit.SECONDS).release();
        counted.dispatch(XdrBytes.message(call(0, "")), info).get(5, TimeUnit.SECONDS).release();
        counted.dispatch(XdrBytes.message(call(9, "")), info).get(5, TimeUnit.SECONDS).release();
        counted.dispatch(XdrBytes.message(call(3, PROG, 2, 0, AUTH_NONE + " " + AUTH_NONE, "")), info)
                .get(5, TimeUnit.SECONDS).release();
        counted.dispatch(XdrBytes.message("00000001"), info).handle((r, e) -> e).get(5, TimeUnit.SECONDS);
        assertThat(registry.get("iwarp.oncrpc.replies").tag("stat", "SUCCESS").counter().count()).isEqualTo(2);
        assertThat(registry.get("iwarp.oncrpc.replies").tag("stat", "PROC_UNAVAIL").counter().count()).isEqualTo(1);
        assertThat(registry.get("iwarp.oncrpc.replies").tag("stat", "RPC_MISMATCH").counter().count()).isEqualTo(1);
        assertThat(registry.get("iwarp.oncrpc.dropped").counter().count()).isEqualTo(1);
    }
}
