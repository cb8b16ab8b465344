package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.oncrpc.sample.SinkResult;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The example of docs/oncrpc.md, verbatim between the markers, so the page cannot rot. */
class ReadmeExampleTest {

    @Test
    void readmeExampleRuns() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        // --- docs/oncrpc.md example begins ---
        // Server: register programs with a dispatcher, serve it on TCP (record marking).
        RpcDispatcher dispatcher = new RpcDispatcher()
                .register(EchoProgram.create())
                .register(RpcProgram.builder(0x20000001, 1)              // a program of your own
                        .procedure(1, RpcProcedure.of((ctx, args, results) -> {
                            String name = args.readString(255);           // bounded decoding
                            String who = ctx.authSysCredential().map(AuthSys::machineName).orElse("?");
                            results.writeString("hello " + name + " from " + who, 1024);
                        }))
                        .build());
        try (RpcTcpServer server = RpcTcpServer.builder(dispatcher).bind(new InetSocketAddress("127.0.0.1", 0));
             RpcClient client = RpcClient.builder(RpcTcpClientTransport.connect(server.localAddress()).get())
                     .credential(new AuthSys(0, "client-host", 1000, 1000, new int[0]))
                     .timeout(Duration.ofSeconds(10))
                     .build()) {
            // Any procedure: encode the arguments, decode the results; errors complete the future
            // exceptionally (RpcProgramUnavailableException, RpcAuthException, RpcTimeoutException...).
            String greeting = client.call(0x20000001, 1, 1, args -> args.writeString("world", 255),
                    results -> results.readString(1024)).get();
            out.println(greeting);                                      // hello world from client-host

            // The sample program's stub: ECHO, SINK (bulk to the server), SOURCE (bulk back).
            EchoClient echo = new EchoClient(client);
            SinkResult sunk = echo.sink(Unpooled.wrappedBuffer(new byte[1 << 20])).get();
            out.println(sunk.length() + " octets, CRC32c " + Integer.toHexString(sunk.crc32c()));
            ByteBuf data = echo.source(1 << 20).get();                  // the caller releases it
            out.println(data.readableBytes() + " octets back, pattern " + EchoProgram.isSource(data));
            data.release();
        }
        // --- docs/oncrpc.md example ends ---
        assertThat(printed.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "hello world from client-host",
                "1048576 octets, CRC32c " + Integer.toHexString(EchoProgram.crc32c(Unpooled.wrappedBuffer(new byte[1 << 20]))),
                "1048576 octets back, pattern true");
    }
}
