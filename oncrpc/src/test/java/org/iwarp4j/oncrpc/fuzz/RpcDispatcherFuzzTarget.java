package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcProtocolException;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for a server's handling of one received RPC message (RFC 5531 §9): the call
 * header, credential and verifier, program/version/procedure lookup and the procedure's argument
 * decoding, through {@link RpcDispatcher} with the sample {@link EchoProgram} registered. The input
 * is the message. Seeds: Echo calls (NULL, ECHO with AUTH_NONE and AUTH_SYS), calls for an
 * unregistered program and version, rpcvers 3, the RFC's NFS NULL call, and NFS NULL and GETATTR calls of the NFS-over-RDMA capture.
 *
 * <p>Properties: {@link RpcDispatcher#dispatch} never throws and its future completes, with a reply
 * that starts with the call's XID and msg_type REPLY, or fails with the {@link RpcProtocolException}
 * it documents for a message that cannot be answered; the call and the reply are released.
 */
class RpcDispatcherFuzzTarget {

    private static final RpcDispatcher DISPATCHER = new RpcDispatcher().register(EchoProgram.create(4096));
    private static final RpcTransportInfo TRANSPORT =
            RpcTransportInfo.of("fuzz", null, new InetSocketAddress("192.0.2.1", 700));

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) throws InterruptedException {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf in = alloc.buffer(input.length).writeBytes(input);
        int xid = input.length >= 4 ? in.getInt(0) : 0;
        CompletableFuture<XdrMessage> reply = DISPATCHER.dispatch(XdrMessage.of(in), TRANSPORT);
        XdrMessage message;
        try {
            message = reply.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof RpcProtocolException)) {
                throw new AssertionError("dispatch failed with an undocumented exception", e.getCause());
            }
            message = null;
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within 10 s: a hang", e);
        }
        if (message != null) {
            ByteBuf stream = message.stream();
            try {
                assertThat(stream.readableBytes()).isGreaterThanOrEqualTo(8);
                assertThat(stream.getInt(0)).as("XID").isEqualTo(xid);
                assertThat(stream.getInt(4)).as("msg_type REPLY").isEqualTo(1);
            } finally {
                stream.release();
                message.release();
            }
        }
        assertThat(in.refCnt()).as("the call is released").isZero();
        FuzzInput.assertNothingHeld(alloc);
    }
}
