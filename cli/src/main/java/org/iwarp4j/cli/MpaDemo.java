package org.iwarp4j.cli;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.mpa.NegotiationMode;

/**
 * The MPA demo: an Initiator and a Responder on one event loop group, connected over loopback TCP;
 * each sends its ULPDUs as soon as MPA reaches Full Operation and checks every octet it receives.
 */
final class MpaDemo {

    private static final long TIMEOUT_SECONDS = 120;
    private static final String RESPONDER_PRIVATE_DATA = "welcome from the iwarp4j Responder";

    private final int revision;
    private final NegotiationMode markers;
    private final NegotiationMode crc;
    private final int maxUlpdu;
    private final String privateData;

    MpaDemo(int revision, NegotiationMode markers, NegotiationMode crc, int maxUlpdu, String privateData) {
        this.revision = revision;
        this.markers = markers;
        this.crc = crc;
        this.maxUlpdu = maxUlpdu;
        this.privateData = privateData;
    }

    private MpaSettings settings(byte[] pd, MeterRegistry meters) {
        return MpaSettings.builder().revision(revision).markers(markers).crc(crc).maxSendUlpdu(maxUlpdu)
                .privateData(pd).meterRegistry(meters).build();
    }

    Report run(int count, int size) throws Exception {
        SimpleMeterRegistry initiatorMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry responderMeters = new SimpleMeterRegistry();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        try {
            java.util.function.Consumer<Channel> record = org.iwarp4j.tools.pcap.PcapRecording.recorder(
                    org.iwarp4j.tools.pcap.CommandCapture.current());
            CompletableFuture<DemoPeer> accepted = new CompletableFuture<>();
            CompletableFuture<Channel> acceptedChannel = new CompletableFuture<>();
            byte[] responderPd = RESPONDER_PRIVATE_DATA.getBytes(StandardCharsets.UTF_8);
            ConnectRequestHandler decision = request ->
                    CompletableFuture.completedFuture(MpaDecision.accept(responderPd));
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            record.accept(ch);
                            connections.add(ch);
                            DemoPeer peer = new DemoPeer(DemoPeer.RESPONDER, count, size);
                            ch.pipeline().addLast(MpaStartupHandler.responder(
                                    settings(responderPd, responderMeters), decision), peer);
                            accepted.complete(peer);
                            acceptedChannel.complete(ch);
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            InetSocketAddress address = (InetSocketAddress) server.localAddress();
            DemoPeer initiator = new DemoPeer(DemoPeer.INITIATOR, count, size);
            long start = System.nanoTime();
            Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            record.accept(ch);
                            connections.add(ch);
                            ch.pipeline().addLast(MpaStartupHandler.initiator(
                                    settings(privateData.getBytes(StandardCharsets.UTF_8), initiatorMeters)),
                                    initiator);
                        }
                    })
                    .connect(address).sync().channel();
            DemoPeer responder = accepted.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            boolean done = initiator.finished().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    & responder.finished().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long nanos = System.nanoTime() - start;
            // Both ends are closed here, not left to the group's shutdown: a channel still open
            // when its event loop ends is never closed, and what its pipeline holds is never released.
            client.close().sync();
            acceptedChannel.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).close().sync();
            server.close().sync();
            return new Report(address, initiator, responder, initiatorMeters, responderMeters, done, nanos);
        } finally {
            // The same when the demo failed or timed out: ends still open are closed before the shutdown.
            connections.close().awaitUninterruptibly(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** What the demo saw, printed for the user. */
    static final class Report {
        private final InetSocketAddress address;
        private final DemoPeer initiator;
        private final DemoPeer responder;
        private final MeterRegistry initiatorMeters;
        private final MeterRegistry responderMeters;
        private final boolean verified;
        private final long nanos;

        Report(InetSocketAddress address, DemoPeer initiator, DemoPeer responder, MeterRegistry initiatorMeters,
               MeterRegistry responderMeters, boolean verified, long nanos) {
            this.address = address;
            this.initiator = initiator;
            this.responder = responder;
            this.initiatorMeters = initiatorMeters;
            this.responderMeters = responderMeters;
            this.verified = verified;
            this.nanos = nanos;
        }

        boolean verified() {
            return verified;
        }

        void print(PrintWriter out) {
            NegotiatedParameters i = initiator.parameters();
            NegotiatedParameters r = responder.parameters();
            out.printf("iwarp4j MPA demo: Initiator and Responder over loopback TCP %s%n", address);
            out.printf("negotiated: MPA revision %d%s, CRC32c %s, markers Initiator->Responder %s, "
                            + "Responder->Initiator %s%n",
                    i.revision(), i.revision() == 2 ? " (RFC 6581)" : " (RFC 5044)", i.crc() ? "on" : "off",
                    i.markersToPeer() ? "on" : "off", r.markersToPeer() ? "on" : "off");
            if (i.peerEnhancedData() != null) {
                out.printf("IRD/ORD: Initiator %d/%d, Responder %d/%d%n", i.ird(), i.ord(), r.ird(), r.ord());
            }
            out.printf("private data: Responder received \"%s\", Initiator received \"%s\"%n",
                    new String(r.peerPrivateData(), StandardCharsets.UTF_8),
                    new String(i.peerPrivateData(), StandardCharsets.UTF_8));
            out.printf("ULPDUs: %d of %d octets each way (MULPDU %d), %s%n", initiator.count(),
                    initiator.ulpduSize(), i.sendMulpdu(),
                    verified ? "every octet verified" : "NOT all received intact: " + initiator.problem()
                            + " / " + responder.problem());
            line(out, "Initiator -> Responder", initiatorMeters, responderMeters);
            line(out, "Responder -> Initiator", responderMeters, initiatorMeters);
            double seconds = nanos / 1e9;
            double mb = (double) initiator.count() * initiator.ulpduSize() / 1e6;
            out.printf("time: %.3f s (handshake included), %.1f MB/s of ULPDU payload each way%n",
                    seconds, mb / seconds);
        }

        private static void line(PrintWriter out, String direction, MeterRegistry sender, MeterRegistry receiver) {
            out.printf("%s: %.0f FPDUs, %.0f octets on the wire sent; %.0f FPDUs received%n", direction,
                    count(sender, "iwarp.mpa.fpdus", "tx"), count(sender, "iwarp.mpa.bytes", "tx"),
                    count(receiver, "iwarp.mpa.fpdus", "rx"));
        }

        private static double count(MeterRegistry registry, String name, String direction) {
            return registry.get(name).tag("direction", direction).counter().count();
        }
    }
}
