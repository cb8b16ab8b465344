package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaServer;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/**
 * Our own RPC-over-RDMA Requester and Responder, recorded at the client: an ECHO larger than the
 * inline thresholds travels as a Long Call and a Long Reply (RPC-R-031), which the decoder puts
 * back together from the Read Responses and the Reply chunk's Writes; nothing is a violation.
 */
class OwnRpcRdmaCaptureTest {

    private static final String ECHO = "prog " + Integer.toUnsignedLong(EchoProgram.PROGRAM) + " v1 proc "
            + EchoProgram.PROC_ECHO;

    @Test
    void ourLongCallAndLongReplyAreDecoded() throws Exception {
        ByteArrayOutputStream capture = new ByteArrayOutputStream();
        try (Rnic serverRnic = Rnic.builder().build();
             Rnic clientRnic = Rnic.builder().channelInitializer(ch -> ch.pipeline().addLast(new PcapWriteHandler(capture)))
                     .build()) {
            RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).inlineSize(4096).build();
            RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create());
            try (RpcRdmaServer server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                         dispatcher, settings);
                 RpcRdmaRequester transport = RpcRdmaRequester.connect(clientRnic, server.localAddress(), settings)
                         .get(10, TimeUnit.SECONDS);
                 RpcClient client = RpcClient.builder(transport).timeout(Duration.ofSeconds(10)).build()) {
                ByteBuf back = new EchoClient(client).echo(Unpooled.wrappedBuffer(new byte[10_000]))
                        .get(10, TimeUnit.SECONDS);
                assertThat(back.readableBytes()).isEqualTo(10_000);
                back.release();
            }
        }
        byte[] pcap;
        synchronized (capture) {
            pcap = capture.toByteArray();
        }
        Path file = Files.createDirectories(Path.of("target", "own-stack")).resolve("rpc-rdma-long-call.pcap");
        Files.write(file, pcap);  // kept for a look with iwarp decode or tshark

        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        List<String> lines = r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
        assertThat(lines).filteredOn(l -> l.contains("RDMA_NOMSG") && l.endsWith("| CALL (in a chunk)")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.startsWith("Read Response ") && l.contains("| Long Call xid "))
                .singleElement().satisfies(l -> assertThat(l).endsWith(") complete: CALL " + ECHO));
        assertThat(lines).filteredOn(l -> l.contains("RDMA_NOMSG") && l.contains("| REPLY to " + ECHO + " (frame "))
                .hasSize(1);
    }
}
