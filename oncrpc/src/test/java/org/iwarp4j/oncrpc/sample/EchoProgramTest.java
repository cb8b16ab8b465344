package org.iwarp4j.oncrpc.sample;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The echo program's wire format and its DDP-eligible items, through an in-process transport. */
class EchoProgramTest {

    /** Records each call's and reply's octets and piece flags, and dispatches in-process. */
    private static final class RecordingTransport implements RpcClientTransport {
        final RpcDispatcher dispatcher;
        final List<String> calls = new ArrayList<>();
        final List<List<Boolean>> callFlags = new ArrayList<>();
        final List<String> replies = new ArrayList<>();
        final List<List<Boolean>> replyFlags = new ArrayList<>();

        RecordingTransport(RpcDispatcher dispatcher) {
            this.dispatcher = dispatcher;
        }

        private static String hex(XdrMessage m) {
            ByteBuf s = m.stream();
            try {
                return org.iwarp4j.testkit.Hex.encode(ByteBufUtil.getBytes(s)); // one bulk read: fast under PARANOID
            } finally {
                s.release();
            }
        }

        @Override
        public synchronized CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            calls.add(hex(call));
            callFlags.add(call.pieces().stream().map(XdrPiece::ddpEligible).toList());
            return dispatcher.dispatch(call, RpcTransportInfo.of("recording", null, null)).thenApply(reply -> {
                synchronized (this) {
                    replies.add(hex(reply));
                    replyFlags.add(reply.pieces().stream().map(XdrPiece::ddpEligible).toList());
                }
                return reply;
            });
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void close() {
        }
    }

    private final RecordingTransport transport = new RecordingTransport(
            new RpcDispatcher().register(EchoProgram.create(1 << 20)));
    private final EchoClient echo = new EchoClient(RpcClient.builder(transport).build(), 1 << 20);

    /** The call without its xid: CALL, rpcvers 2, prog, vers, proc, AUTH_NONE cred and verf. */
    private static String callHeader(int proc) {
        return String.format("00000000" + "00000002" + "20495701" + "00000001" + "%08x" + "0000000000000000" + "0000000000000000", proc);
    }

    private static final String SUCCESS = "00000001" + "00000000" + "0000000000000000" + "00000000";

    @Test
    void programNumberIsInTheUserDefinedRange() { // RFC 5531 §7.3
        assertThat(EchoProgram.PROGRAM).isBetween(RpcConstants.USER_DEFINED_PROGRAM_FIRST,
                RpcConstants.USER_DEFINED_PROGRAM_LAST);
    }

    @Test
    void echoSendsTheOpaqueAndGetsItBack() throws Exception {
        ByteBuf back = echo.echo(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII)).get(5, TimeUnit.SECONDS);
        try {
            assertThat(back.toString(StandardCharsets.US_ASCII)).isEqualTo("hello");
        } finally {
            back.release();
        }
        assertThat(transport.calls.get(0).substring(8)).isEqualTo(callHeader(1) + "00000005" + "68656c6c6f000000");
        assertThat(transport.replies.get(0).substring(8)).isEqualTo(SUCCESS + "00000005" + "68656c6c6f000000");
        assertThat(transport.callFlags.get(0)).doesNotContain(true);
    }

    @Test
    void sinkDataIsDdpEligibleAndTheResultIsLengthAndCrc32c() throws Exception {
        // CRC32c("123456789") = 0xE3069283, the check value of the Castagnoli CRC.
        SinkResult result = echo.sink(Unpooled.copiedBuffer("123456789", StandardCharsets.US_ASCII)).get(5, TimeUnit.SECONDS);
        assertThat(result).isEqualTo(new SinkResult(9, 0xE3069283));
        assertThat(transport.callFlags.get(0)).containsExactly(false, false, true);
        assertThat(transport.calls.get(0).substring(8)).isEqualTo(callHeader(2) + "00000009" + "313233343536373839000000");
        assertThat(transport.replies.get(0).substring(8)).isEqualTo(SUCCESS + "00000009" + "e3069283");
    }

    @Test
    void sourceResultIsDdpEligibleAndFollowsThePattern() throws Exception {
        ByteBuf data = echo.source(70_000).get(5, TimeUnit.SECONDS);
        try {
            assertThat(data.readableBytes()).isEqualTo(70_000);
            assertThat(EchoProgram.isSource(data)).isTrue();
            assertThat(data.getByte(65_537)).isEqualTo(EchoProgram.sourceByte(1));
        } finally {
            data.release();
        }
        assertThat(transport.calls.get(0).substring(8)).isEqualTo(callHeader(3) + "00011170");
        assertThat(transport.replyFlags.get(0)).containsExactly(false, false, true);
        assertThat(transport.replies.get(0).substring(8, 8 + SUCCESS.length() + 8)).isEqualTo(SUCCESS + "00011170");
    }

    @Test
    void oddSourceCountIsPaddedInTheStream() throws Exception {
        ByteBuf data = echo.source(5).get(5, TimeUnit.SECONDS);
        data.release();
        String reply = transport.replies.get(0);
        assertThat(reply).hasSize(2 * (24 + 4 + 8)).endsWith("000000");
    }

    @Test
    void sourceCountBeyondTheLimitIsGarbageArgs() {
        assertThatThrownBy(() -> echo.source((1 << 20) + 1).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RpcGarbageArgsException.class);
    }

    @Test
    void nullCallIsProcedureZero() throws Exception {
        echo.nullCall().get(5, TimeUnit.SECONDS);
        assertThat(transport.calls.get(0).substring(8)).isEqualTo(callHeader(0));
        assertThat(transport.replies.get(0).substring(8)).isEqualTo(SUCCESS);
    }
}
