package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/** The echo program between two JVMs, over RPC-over-RDMA and over plain TCP, the same client code on both. */
class TwoJvmTest {

    private static void exercise(RpcClientTransport transport) throws Exception {
        try (RpcClient client = RpcClient.builder(transport).timeout(Duration.ofSeconds(30)).build()) {
            EchoClient echo = new EchoClient(client);
            echo.nullCall().get(30, TimeUnit.SECONDS);
            ByteBuf back = echo.echo(Unpooled.wrappedBuffer(new byte[20_000])).get(30, TimeUnit.SECONDS);
            assertThat(back.readableBytes()).isEqualTo(20_000);
            back.release();
            ByteBuf data = Unpooled.buffer(1 << 20).writeZero(1 << 20);
            int crc = EchoProgram.crc32c(data);
            SinkResult sunk = echo.sink(data).get(30, TimeUnit.SECONDS);
            assertThat(sunk.crc32c()).isEqualTo(crc);
            ByteBuf source = echo.source(1 << 20).get(30, TimeUnit.SECONDS);
            assertThat(EchoProgram.isSource(source)).isTrue();
            source.release();
        }
    }

    @Test
    void echoAndBulkTransferBetweenTwoJvmsOverRdmaAndTcp() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process server = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                EchoServerMain.class.getName())).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String announced = CompletableFuture.supplyAsync(() -> {
                try {
                    return lines.readLine();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).get(60, TimeUnit.SECONDS);
            String[] f = announced.split(" ");
            assertThat(f[0]).isEqualTo("rdma");
            InetSocketAddress rdma = new InetSocketAddress("127.0.0.1", Integer.parseInt(f[1]));
            InetSocketAddress tcp = new InetSocketAddress("127.0.0.1", Integer.parseInt(f[3]));
            try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
                RpcRdmaRequester requester = RpcRdmaRequester.connect(rnic, rdma,
                        RpcRdmaSettings.builder().binding(new EchoBinding()).inlineSize(4096).build())
                        .get(30, TimeUnit.SECONDS);
                assertThat(requester.callInlineThreshold()).isEqualTo(4096); // RFC 8797 across the two JVMs
                exercise(requester); // closes the requester
            }
            exercise(RpcTcpClientTransport.connect(tcp).get(30, TimeUnit.SECONDS));
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        assertThat(server.exitValue()).isZero();
    }
}
