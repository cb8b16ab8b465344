package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.tools.bench.internal.PingPongDest;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our perftest client against Linux perftest's own bytes: a scripted server answers our client's
 * control messages with exactly the ULPDUs {@code ib_*_bw -R} sent over siw in
 * {@code testdata/captures/ib_*_bw-siw.pcap} (run with {@code -R -n 5 -s 64 -F -d siw0 -p 18515}, see
 * that directory's README), and our client's
 * messages are compared with the captured client's, ULPDU by ULPDU: the same count, the same
 * DDP/RDMAP headers (Send, QN 0, the same MSNs), the same lengths, the same fixed contents.
 * RDMAP-R-001 (Send), DDP untagged QN 0 / MSN order.
 */
class PerftestCaptureTest {

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    /** Closed after each test too, also a failed one: its accepted connections must not outlive the group. */
    private ScriptedServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The ULPDUs of one direction after the MPA startup frame (no markers in these captures). */
    static List<byte[]> ulpdus(byte[] stream) {
        ByteBuffer b = ByteBuffer.wrap(stream);
        b.position(16 + 2);
        int privateData = b.getShort() & 0xffff;
        b.position(b.position() + privateData);
        List<byte[]> ulpdus = new ArrayList<>();
        while (b.remaining() >= 2) {
            int length = b.getShort() & 0xffff;
            byte[] ulpdu = new byte[length];
            b.get(ulpdu);
            b.position(b.position() + (4 - (2 + length) % 4) % 4 + 4); // pad and CRC
            ulpdus.add(ulpdu);
        }
        return ulpdus;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"ib_write_bw-siw.pcap, WRITE", "ib_read_bw-siw.pcap, READ", "ib_send_bw-siw.pcap, SEND"})
    void ourClientSpeaksPerftestsExchange(String pcap, BenchTest test) throws Exception {
        List<TcpConnection> connections = PcapReader.read(TestData.capture(pcap)).connections();
        List<byte[]> capturedClient = ulpdus(connections.get(0).clientToServer().stream());
        List<byte[]> capturedServer = ulpdus(connections.get(0).serverToClient().stream());
        List<byte[]> capturedData = ulpdus(connections.get(1).clientToServer().stream());

        server = new ScriptedServer(capturedServer, true);
        BenchSettings settings = new BenchSettings(test, List.of(64), 5, 0, 0, 1, 128, NegotiationMode.ACCEPT,
                false, 2, 0, Transport.NIO, true);
        RdmaOutcome outcome = PerftestClient.run(settings, server.address, null, null);

        assertThat(outcome.peerVersion()).isEqualTo("6.06");
        assertThat(outcome.verifiable()).isFalse(); // perftest's memory holds no known pattern
        assertThat(outcome.bandwidth()).singleElement().satisfies(r -> {
            assertThat(r.iterations()).isEqualTo(5);
            assertThat(r.averageBytesPerSecond()).isPositive();
        });
        assertThat(server.requestPrivateData).succeedsWithin(5, TimeUnit.SECONDS)
                .satisfies(pd -> assertThat(pd).isEmpty()); // rdma_cm sends no ULP private data for perftest

        List<byte[]> ours = server.controlReceived;
        assertThat(ours).hasSameSizeAs(capturedClient);
        for (int i = 0; i < ours.size(); i++) {
            byte[] mine = ours.get(i);
            byte[] theirs = capturedClient.get(i);
            assertThat(mine.length).as("length of control message %d", i + 1).isEqualTo(theirs.length);
            assertThat(Arrays.copyOf(mine, 18)).as("DDP/RDMAP header of control message %d", i + 1)
                    .isEqualTo(Arrays.copyOf(theirs, 18));
        }
        // Fixed contents: version prefix, cycle buffer 4096, cache line 64, MTU "3", the zeroed handshakes.
        assertThat(new String(ours.get(0), 18, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("6.06");
        for (int i = 1; i <= 5; i++) {
            assertThat(ours.get(i)).as("control message %d", i + 1).isEqualTo(capturedClient.get(i));
        }
        PingPongDest dest = PingPongDest.decode(Arrays.copyOfRange(ours.get(6), 18, 18 + PingPongDest.LENGTH));
        PingPongDest capturedDest = PingPongDest.decode(
                Arrays.copyOfRange(capturedClient.get(6), 18, 18 + PingPongDest.LENGTH));
        assertThat(dest.lid()).isEqualTo(capturedDest.lid());
        assertThat(dest.outReads()).isEqualTo(capturedDest.outReads());
        assertThat(dest.psn()).isBetween(0, 0xffffff);
        if (test != BenchTest.SEND) {
            // The report: size 64 and 5 iterations, 8 octets big-endian each, as perftest's client sent them.
            int report = capturedClient.size() - 6;
            assertThat(ours.get(report)).isEqualTo(capturedClient.get(report));
            assertThat(ours.get(report + 1)).isEqualTo(capturedClient.get(report + 1));
        }

        // The data connection: 5 operations to the captured server's STag and address.
        PingPongDest serverDest = PingPongDest.decode(
                Arrays.copyOfRange(capturedServer.get(6), 18, 18 + PingPongDest.LENGTH));
        // The scripted server never answers on the data connection (ib_send_bw's does not either),
        // so our queue pair may add its one wake-up Write (QueuePairSettings.Builder#wakeUpWriteAfter):
        // a zero-length RDMA Write, STag 1, TO 0. It is no part of perftest's exchange.
        byte[] wakeUpWrite = org.iwarp4j.testkit.Hex.decode("c140 00000001 00000000 00000000");
        List<byte[]> data = server.dataReceived.stream().filter(u -> !Arrays.equals(u, wakeUpWrite)).toList();
        assertThat(server.dataReceived.size() - data.size()).as("wake-up Writes").isBetween(0, 1);
        assertThat(data).hasSameSizeAs(capturedData);
        for (int i = 0; i < data.size(); i++) {
            assertThat(data.get(i).length).isEqualTo(capturedData.get(i).length);
            assertThat(data.get(i)[0]).isEqualTo(capturedData.get(i)[0]); // DDP control: tagged or not, last
            assertThat(data.get(i)[1]).isEqualTo(capturedData.get(i)[1]); // RDMAP opcode
        }
        ByteBuffer first = ByteBuffer.wrap(data.get(0));
        switch (test) {
            case WRITE -> {
                assertThat(first.getInt(2)).isEqualTo(serverDest.rkey());
                assertThat(first.getLong(6)).isEqualTo(serverDest.vaddr());
                assertThat(Arrays.copyOf(data.get(0), 14)).isEqualTo(Arrays.copyOf(capturedData.get(0), 14));
            }
            case READ -> {
                assertThat(first.getInt(34)).isEqualTo(serverDest.rkey()); // Data Source STag
                assertThat(first.getLong(38)).isEqualTo(serverDest.vaddr()); // Data Source Tagged Offset
                assertThat(first.getInt(30)).isEqualTo(64); // RDMA Read Message Size
            }
            default -> assertThat(data.get(0).length).isEqualTo(18 + 64);
        }
        server.close();
    }

    /**
     * Our client leaves the close of the control connection to the server, which sent the last
     * message: siw fails a Send delivered whole if the peer's close overtakes its transmit path
     * (ControlChannel#awaitPeerClose). With the server holding its end open, our client must not
     * close first; once the server closes, the run ends without waiting out its limit.
     */
    @org.junit.jupiter.api.Test
    void ourClientLetsTheServerCloseTheControlConnectionFirst() throws Exception {
        List<TcpConnection> connections = PcapReader.read(TestData.capture("ib_write_bw-siw.pcap")).connections();
        server = new ScriptedServer(ulpdus(connections.get(0).serverToClient().stream()), false);
        BenchSettings settings = new BenchSettings(BenchTest.WRITE, List.of(64), 5, 0, 0, 1, 128,
                NegotiationMode.ACCEPT, false, 2, 0, Transport.NIO, true);
        List<String> progress = new CopyOnWriteArrayList<>();
        CompletableFuture<RdmaOutcome> run = CompletableFuture.supplyAsync(() -> {
            try {
                return PerftestClient.run(settings, server.address, null, progress::add);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        server.scriptDone.get(30, TimeUnit.SECONDS);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> server.controlClosedByClient.get(1, TimeUnit.SECONDS))
                .as("our client closed the control connection before the server")
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(run).isNotDone();
        server.closeControl();
        assertThat(run).succeedsWithin(4, TimeUnit.SECONDS)
                .satisfies(o -> assertThat(o.bandwidth()).singleElement());
        assertThat(server.controlClosedByClient).isCompletedWithValue(false);
        assertThat(progress).noneMatch(p -> p.contains("did not close"));
    }

    /**
     * A raw MPA Responder: the first connection gets the captured server's control ULPDUs, one for
     * each of ours; the second records our data ULPDUs and answers RDMA Read Requests.
     */
    private final class ScriptedServer implements AutoCloseable {
        final List<byte[]> controlReceived = new CopyOnWriteArrayList<>();
        final List<byte[]> dataReceived = new CopyOnWriteArrayList<>();
        final CompletableFuture<byte[]> requestPrivateData = new CompletableFuture<>();
        final InetSocketAddress address;
        private final Channel channel;
        private final AtomicInteger connections = new AtomicInteger();
        private final ChannelGroup accepted = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

        /** Completes with the control connection once the script's last message is flushed, if it is held open. */
        final CompletableFuture<Channel> scriptDone = new CompletableFuture<>();
        /** Completes when the control connection closes: true if our client closed it, false if we did. */
        final CompletableFuture<Boolean> controlClosedByClient = new CompletableFuture<>();
        private final boolean closeAfterScript;
        private volatile boolean closingControl;

        /**
         * {@code closeAfterScript}: close the control connection once the last message is sent, as
         * perftest's server does when it exits; otherwise hold it open until {@link #closeControl()}.
         */
        ScriptedServer(List<byte[]> script, boolean closeAfterScript) throws InterruptedException {
            this.closeAfterScript = closeAfterScript;
            MpaSettings mpa = MpaSettings.builder().crc(NegotiationMode.ACCEPT).build();
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            boolean control = connections.getAndIncrement() == 0;
                            accepted.add(ch);
                            ch.pipeline().addLast(MpaStartupHandler.responder(mpa, request -> {
                                requestPrivateData.complete(request.ulpPrivateData());
                                return CompletableFuture.completedFuture(MpaDecision.accept());
                            }), control ? new Replay(script) : new DataSink());
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            address = (InetSocketAddress) channel.localAddress();
        }

        void closeControl() {
            closingControl = true;
            scriptDone.join().close().syncUninterruptibly();
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            // Our client may not have closed its end yet: the accepted connections are closed here,
            // since Netty 4.2's group shutdown does not tear down a channel still open, and their
            // MPA decoders' cumulations would leak.
            accepted.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }

        private final class Replay extends ChannelInboundHandlerAdapter {
            private final List<byte[]> script;
            private int next;

            Replay(List<byte[]> script) {
                this.script = script;
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf ulpdu = (ByteBuf) msg;
                controlReceived.add(ByteBufUtil.getBytes(ulpdu));
                ulpdu.release();
                if (next < script.size()) {
                    io.netty.channel.ChannelFuture sent = ctx.writeAndFlush(Unpooled.wrappedBuffer(script.get(next++)));
                    if (next == script.size()) {
                        if (closeAfterScript) {
                            closingControl = true;
                            sent.addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                        } else {
                            sent.addListener(f -> scriptDone.complete(ctx.channel()));
                        }
                    }
                }
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                controlClosedByClient.complete(!closingControl);
                ctx.fireChannelInactive();
            }
        }

        private final class DataSink extends ChannelInboundHandlerAdapter {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf ulpdu = (ByteBuf) msg;
                byte[] octets = ByteBufUtil.getBytes(ulpdu);
                ulpdu.release();
                dataReceived.add(octets);
                if ((octets[1] & 0x0f) == 1 && (octets[0] & 0x80) == 0) { // RDMA Read Request (RFC 5040 §4.4)
                    ByteBuffer request = ByteBuffer.wrap(octets);
                    int size = request.getInt(30);
                    ByteBuf response = Unpooled.buffer(14 + size);
                    response.writeByte(0xc1).writeByte(0x42) // tagged, last; RDMAP Read Response
                            .writeInt(request.getInt(18)).writeLong(request.getLong(22)).writeZero(size);
                    ctx.writeAndFlush(response);
                }
            }
        }
    }
}
