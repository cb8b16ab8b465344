package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/** The example of docs/rpc-over-rdma.md, verbatim between the markers, run with the tests. */
class ReadmeRpcRdmaExampleTest {

    @Test
    void theReadmeExampleRuns() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        // --- docs/rpc-over-rdma.md example begins ---
        try (Rnic serverRnic = Rnic.builder().build(); Rnic clientRnic = Rnic.builder().build()) {
            // Both ends: the sample program's Upper-Layer Binding and 4 KiB inline thresholds, which
            // each end announces in its RFC 8797 MPA private data (1024 octets if a peer announces none).
            RpcRdmaSettings settings = RpcRdmaSettings.builder()
                    .binding(new EchoBinding())
                    .inlineSize(4096)
                    .build();
            RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create());
            try (RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                         dispatcher, settings);
                 RpcRdmaRequester transport = RpcRdmaRequester.connect(clientRnic, server.localAddress(), settings)
                         .get();
                 RpcClient client = RpcClient.builder(transport).timeout(Duration.ofSeconds(10)).build()) {
                out.println("inline " + transport.callInlineThreshold() + "/" + transport.replyInlineThreshold()
                        + ", Send with Invalidate " + transport.remoteInvalidation());
                EchoClient echo = new EchoClient(client);
                echo.nullCall().get();                                   // one Send each way
                SinkResult sunk = echo.sink(Unpooled.wrappedBuffer(new byte[1 << 20])).get();
                out.println("SINK " + sunk.length());                    // data pulled from a Read chunk
                ByteBuf data = echo.source(1 << 20).get();               // pushed into a Write chunk
                out.println("SOURCE " + data.readableBytes() + " " + EchoProgram.isSource(data));
                data.release();
                ByteBuf back = echo.echo(Unpooled.wrappedBuffer(new byte[10_000])).get();
                out.println("ECHO " + back.readableBytes());            // Long Call and Long Reply
                back.release();
                out.println("credits " + transport.grantedCredits() + ", at most "
                        + transport.maxCallsInFlight() + " in flight");
            }
        }
        // --- docs/rpc-over-rdma.md example ends ---
        assertThat(printed.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "inline 4096/4096, Send with Invalidate true",
                "SINK 1048576",
                "SOURCE 1048576 true",
                "ECHO 10000",
                "credits 32, at most 1 in flight");
    }
}
