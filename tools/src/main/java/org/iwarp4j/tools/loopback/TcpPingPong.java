package org.iwarp4j.tools.loopback;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.internal.NettyIo;
import org.iwarp4j.tools.bench.internal.TcpBenchClient;
import org.iwarp4j.tools.bench.internal.TcpBenchServer;

/**
 * The plain-TCP baseline for {@link RdmaPingPong}: the client writes {@code size} octets, the server
 * echoes what it reads ({@code iwarp bench}'s TCP server, {@link TcpBenchServer}, in its latency
 * mode), the client writes again once the whole echo is back; the client answers on its event loop,
 * as {@link RdmaPingPong} does; one event loop per end, TCP_NODELAY, the same Netty transport.
 */
final class TcpPingPong {

    private TcpPingPong() {
    }

    static RoundTrips run(int size, int warmupRounds, int rounds, Transport transport) throws Exception {
        EventLoopGroup clientGroup = NettyIo.group(transport);
        Channel client = null;
        InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
        try (TcpBenchServer server = new TcpBenchServer(loopback, transport, 1, size, 1, null, loopback.getAddress(), 1)) {
            long[] timing = new long[2];
            long[] cpu = new long[2];
            CompletableFuture<Void> done = new CompletableFuture<>();
            client = new Bootstrap().group(clientGroup).channel(NettyIo.socketChannel(transport))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInboundHandlerAdapter() {
                        private long received;
                        private int count;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ByteBuf b = (ByteBuf) msg;
                            received += b.readableBytes();
                            b.release();
                            if (received < size) {
                                return;
                            }
                            received -= size;
                            int n = ++count;
                            if (n == warmupRounds) {
                                timing[0] = System.nanoTime();
                                cpu[0] = Measurement.eventLoopCpuNanos();
                            } else if (n == warmupRounds + rounds) {
                                timing[1] = System.nanoTime();
                                cpu[1] = Measurement.eventLoopCpuNanos();
                                done.complete(null);
                                return;
                            }
                            ctx.writeAndFlush(ctx.alloc().directBuffer(size).writeZero(size));
                        }
                    })
                    .connect(server.localAddress()).sync().channel();
            client.write(TcpBenchClient.echoRequest(size));
            client.writeAndFlush(client.alloc().directBuffer(size).writeZero(size));
            done.get(300, TimeUnit.SECONDS);
            client.close().sync();
            return RoundTrips.of(timing, cpu, rounds);
        } finally {
            // Also when the run failed: Netty 4.2's shutdown does not tear down a channel still
            // open, and the echo writes it has queued would never be released.
            if (client != null) {
                client.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
