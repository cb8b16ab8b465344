package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The echo program between an RpcTcpServer and an RpcTcpClientTransport over real loopback TCP. */
class TcpLoopbackTest {

    private RpcTcpServer server;
    private RpcTcpClientTransport transport;
    private EchoClient echo;

    @BeforeEach
    void start() throws Exception {
        server = RpcTcpServer.builder(new RpcDispatcher().register(EchoProgram.create()))
                .bind(new InetSocketAddress("127.0.0.1", 0));
        transport = RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
        echo = new EchoClient(RpcClient.builder(transport).build());
    }

    @AfterEach
    void stop() {
        transport.close();
        server.close();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void nullAndEcho() throws Exception {
        echo.nullCall().get(10, TimeUnit.SECONDS);
        byte[] data = random(1001, 1);
        ByteBuf back = echo.echo(Unpooled.wrappedBuffer(data)).get(10, TimeUnit.SECONDS);
        try {
            assertThat(ByteBufUtil.getBytes(back)).isEqualTo(data);
        } finally {
            back.release();
        }
    }

    @Test
    void oneMebibyteBothWays() throws Exception {
        byte[] data = random(1 << 20, 2);
        SinkResult sunk = echo.sink(Unpooled.wrappedBuffer(data)).get(10, TimeUnit.SECONDS);
        assertThat(sunk.length()).isEqualTo(data.length);
        assertThat(sunk.crc32c()).isEqualTo(EchoProgram.crc32c(Unpooled.wrappedBuffer(data)));
        ByteBuf sourced = echo.source(1 << 20).get(10, TimeUnit.SECONDS);
        try {
            assertThat(sourced.readableBytes()).isEqualTo(1 << 20);
            assertThat(EchoProgram.isSource(sourced)).isTrue();
        } finally {
            sourced.release();
        }
    }

    @Test
    void pipelinedConcurrentCalls() throws Exception {
        List<CompletableFuture<ByteBuf>> calls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            calls.add(echo.echo(Unpooled.wrappedBuffer(random(i * 37, i))));
        }
        for (int i = 0; i < calls.size(); i++) {
            ByteBuf back = calls.get(i).get(10, TimeUnit.SECONDS);
            try {
                assertThat(ByteBufUtil.getBytes(back)).isEqualTo(random(i * 37, i));
            } finally {
                back.release();
            }
        }
        assertThat(transport.outstandingCalls()).isZero();
    }
}
