package org.iwarp4j.oncrpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** RpcTcpServer and RpcTcpClientTransport over real loopback TCP: xid matching, bounds, failures. */
class TcpTransportTest {

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    static final int PROG = 0x20000055;

    private static Throwable failure(CompletableFuture<?> f) {
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        Throwable e = f.handle((r, x) -> x).join();
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    @Test
    void authSysCredentialTravelsOverTcp() throws Exception {
        RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, RpcProcedure.of((ctx, args, results) -> {
                    AuthSys sys = ctx.authSysCredential().orElseThrow();
                    results.writeString(sys.machineName(), 255).writeInt(sys.uid()).writeInt(sys.gid())
                            .writeIntArray(sys.gids(), 16).writeString(ctx.transport().name(), 16);
                }))
                .build());
        try (RpcTcpServer server = RpcTcpServer.builder(dispatcher).bind(LOOPBACK);
             RpcClient client = RpcClient.builder(RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS))
                     .credential(new AuthSys(99, "tcp-client", 501, 20, new int[] {12, 61, 79})).build()) {
            String seen = client.call(PROG, 1, 1, args -> { }, r -> r.readString(255) + " " + r.readInt() + " "
                    + r.readInt() + " " + java.util.Arrays.toString(r.readIntArray(16)) + " " + r.readString(16))
                    .get(10, TimeUnit.SECONDS);
            assertThat(seen).isEqualTo("tcp-client 501 20 [12, 61, 79] tcp");
        }
    }

    @Test
    void concurrentCallsFromManyThreadsAreMatchedByXid() throws Exception {
        try (RpcTcpServer server = RpcTcpServer.builder(new RpcDispatcher().register(EchoProgram.create())).bind(LOOPBACK);
             RpcTcpClientTransport transport = RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS)) {
            EchoClient echo = new EchoClient(RpcClient.builder(transport).build());
            List<CompletableFuture<Boolean>> results = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                CompletableFuture<Boolean> done = new CompletableFuture<>();
                results.add(done);
                threads.add(new Thread(() -> {
                    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                        byte[] data = new byte[(thread * 100 + i) % 700];
                        java.util.Arrays.fill(data, (byte) (thread * 100 + i));
                        calls.add(echo.echo(Unpooled.wrappedBuffer(data)).thenApply(back -> {
                            try {
                                return java.util.Arrays.equals(io.netty.buffer.ByteBufUtil.getBytes(back), data);
                            } finally {
                                back.release();
                            }
                        }));
                    }
                    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                            .thenApply(v -> calls.stream().allMatch(CompletableFuture::join))
                            .whenComplete((ok, e) -> {
                                if (e != null) {
                                    done.completeExceptionally(e);
                                } else {
                                    done.complete(ok);
                                }
                            });
                }));
            }
            threads.forEach(Thread::start);
            for (CompletableFuture<Boolean> r : results) {
                assertThat(r.get(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(transport.outstandingCalls()).isZero();
            assertThat(transport.unknownXidReplies()).isZero();
        }
    }

    /** A raw record-marking server that answers each call first with a wrong xid, then correctly. */
    @Test
    void replyWithAnUnknownXidIsDroppedAndCounted() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ChannelGroup accepted = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        try {
            Channel raw = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            accepted.add(ch);
                            ch.pipeline().addLast(new RecordMarkingDecoder(1024), new RecordMarkingEncoder(),
                                    new SimpleChannelInboundHandler<ByteBuf>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf call) {
                                            int xid = call.getInt(0);
                                            ctx.write(success(xid + 1));
                                            ctx.writeAndFlush(success(xid));
                                        }
                                    });
                        }
                    }).bind(LOOPBACK).sync().channel();
            try (RpcTcpClientTransport transport = RpcTcpClientTransport.connect(raw.localAddress()).get(10, TimeUnit.SECONDS)) {
                RpcClient client = RpcClient.builder(transport).build();
                assertThat(client.call(PROG, 1, 0, args -> { }, r -> r.readInt()).get(10, TimeUnit.SECONDS))
                        .isEqualTo(0x5a5a5a5a);
                // The wrong-xid reply was written first on the same connection, so it has been handled.
                assertThat(transport.unknownXidReplies()).isEqualTo(1);
                assertThat(transport.isOpen()).isTrue();
            } finally {
                raw.close().sync();
            }
        } finally {
            // The accepted connection may outlive the client's close by a moment: closed here, as
            // Netty 4.2's group shutdown does not tear it down and its decoder's cumulation would leak.
            accepted.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static XdrMessage success(int xid) {
        return XdrEncoder.create().writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0)
                .writeInt(0x5a5a5a5a).toMessage();
    }

    @Test
    void serverServesAtMostMaxOutstandingCallsOfAConnectionAtOnce() throws Exception {
        AtomicInteger inService = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, (ctx, args) -> {
                    most.accumulateAndGet(inService.incrementAndGet(), Math::max);
                    return CompletableFuture.supplyAsync(() -> {
                        inService.decrementAndGet();
                        return XdrEncoder.create().toMessage();
                    }, CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS));
                })
                .build());
        try (RpcTcpServer server = RpcTcpServer.builder(dispatcher).maxOutstandingCalls(2).bind(LOOPBACK);
             RpcClient client = RpcClient.builder(RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS)).build()) {
            List<CompletableFuture<RpcReply>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                calls.add(client.call(PROG, 1, 1, args -> { }));
            }
            for (CompletableFuture<RpcReply> call : calls) {
                call.get(20, TimeUnit.SECONDS).close();
            }
            assertThat(most.get()).isEqualTo(2);
        }
    }

    /** Holds every write with its promise, as a socket does whose client reads nothing. */
    static final class HeldWrites extends io.netty.channel.ChannelOutboundHandlerAdapter {
        final List<io.netty.channel.ChannelPromise> promises = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
            io.netty.util.ReferenceCountUtil.release(msg);
            promises.add(promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
        }
    }

    /** A call record (RFC 5531 §9): xid, CALL, RPC version 2, PROG version 1 procedure 1, AUTH_NONE twice. */
    static ByteBuf callRecord(int xid) {
        return Unpooled.buffer().writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(1).writeInt(1)
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
    }

    /**
     * A reply not yet written to the socket counts among the connection's outstanding calls: a
     * client that sends calls and reads no reply is served only as far as its socket takes the
     * replies, instead of the server keeping every reply in memory (each call of some 40 octets
     * can ask for a reply of a MiB). The connection's handler runs in an EmbeddedChannel whose
     * writes the test holds.
     */
    @Test
    void repliesNotYetWrittenCountAsOutstandingSoAClientThatReadsNothingStopsBeingServed() {
        AtomicInteger served = new AtomicInteger();
        RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, (ctx, args) -> {
                    served.incrementAndGet();
                    return CompletableFuture.completedFuture(XdrEncoder.create().writeOpaque(new byte[1000], 1000)
                            .toMessage());
                })
                .build());
        io.netty.channel.embedded.EmbeddedChannel ch = new io.netty.channel.embedded.EmbeddedChannel();
        HeldWrites held = new HeldWrites();
        ch.pipeline().addLast(held, RpcTcpServer.connectionHandler(dispatcher, 2, ch));
        try {
            for (int i = 0; i < 10; i++) {
                ch.writeInbound(callRecord(i + 1));
            }
            assertThat(served).as("two replies unwritten: no more calls served").hasValue(2);
            assertThat(held.promises).hasSize(2);
            assertThat(ch.config().isAutoRead()).as("reading stopped").isFalse();

            held.promises.remove(0).setSuccess(); // the socket took one reply
            assertThat(served).hasValue(3);
            while (!held.promises.isEmpty()) {
                held.promises.remove(0).setSuccess();
            }
            assertThat(served).hasValue(10);
            assertThat(ch.config().isAutoRead()).isTrue();
        } finally {
            held.promises.forEach(p -> p.setSuccess());
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void outstandingCallsFailWhenTheServerGoesAway() throws Exception {
        CompletableFuture<Void> entered = new CompletableFuture<>();
        CompletableFuture<XdrMessage> never = new CompletableFuture<>();
        RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, (ctx, args) -> {
                    entered.complete(null);
                    return never; // does not answer before the server is gone
                })
                .build());
        RpcTcpServer server = RpcTcpServer.builder(dispatcher).bind(LOOPBACK);
        try (RpcTcpClientTransport transport = RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS)) {
            RpcClient client = RpcClient.builder(transport).build();
            CompletableFuture<RpcReply> call = client.call(PROG, 1, 1, args -> { });
            entered.get(10, TimeUnit.SECONDS);
            server.close();
            assertThat(failure(call)).isInstanceOf(RpcTransportException.class).hasMessageContaining("closed");
            assertThat(failure(client.call(PROG, 1, 1, args -> { }))).isInstanceOf(RpcTransportException.class);
        } finally {
            server.close();
            never.completeExceptionally(new IllegalStateException("test over")); // lets the dispatcher release the call
        }
    }

    @Test
    void callLargerThanTheServersRecordLimitClosesTheConnection() throws Exception {
        try (RpcTcpServer server = RpcTcpServer.builder(new RpcDispatcher().register(EchoProgram.create()))
                .maxRecordSize(4096).bind(LOOPBACK);
             RpcTcpClientTransport transport = RpcTcpClientTransport.connect(server.localAddress()).get(10, TimeUnit.SECONDS)) {
            EchoClient echo = new EchoClient(RpcClient.builder(transport).build());
            ByteBuf small = echo.echo(Unpooled.wrappedBuffer(new byte[4000])).get(10, TimeUnit.SECONDS);
            small.release();
            assertThat(failure(echo.echo(Unpooled.wrappedBuffer(new byte[5000])))).isInstanceOf(RpcTransportException.class);
            assertThat(transport.isOpen()).isFalse();
        }
    }

    @Test
    void connectToNothingFails() throws Exception {
        InetSocketAddress unused;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            unused = new InetSocketAddress("127.0.0.1", s.getLocalPort());
        }
        assertThat(failure(RpcTcpClientTransport.connect(unused))).isInstanceOf(RpcTransportException.class);
    }
}
