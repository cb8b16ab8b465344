package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.internal.ConnectionMss;
import org.junit.jupiter.api.Test;

/**
 * MULPDU follows the connection's EMSS (RFC 5044 §4.5: "EMSS is the current effective MSS of the
 * TCP connection", MPA-R-033, MPA-R-035): read from the socket where the transport reports it
 * (Linux epoll, TCP_INFO; io_uring, TCP_MAXSEG), the configured or default EMSS otherwise, and a
 * fixed EMSS or MULPDU always wins.
 */
class EmssFromConnectionTest {

    @Test
    void settingsWithoutAFixedEmssUseTheConnectionsMss() {
        MpaSettings auto = MpaSettings.builder().build();
        assertThat(auto.emssFromConnection()).isTrue();
        assertThat(auto.sendMulpdu(false, 65483)).isEqualTo(64768); // loopback: capped at 64768 (§3)
        assertThat(auto.sendMulpdu(false, 1448)).isEqualTo(1448 - 6); // Ethernet with timestamps
        assertThat(auto.sendMulpdu(true, 1448)).isEqualTo(1448 - 6 - 4 * 3);
        assertThat(auto.sendMulpdu(false, 0)).isEqualTo(1442); // unknown: FALLBACK_EMSS 1448
        assertThat(auto.sendMulpdu(false, 0, true)).isEqualTo(1422); // unknown, IPv6: 1428
        assertThat(auto.toBuilder().build().emssFromConnection()).isTrue();

        MpaSettings fixed = MpaSettings.builder().emss(1460).build();
        assertThat(fixed.emssFromConnection()).isFalse();
        assertThat(fixed.sendMulpdu(false, 65483)).isEqualTo(1454);
        assertThat(fixed.toBuilder().build().sendMulpdu(false, 65483)).isEqualTo(1454);
        assertThat(fixed.sendMulpdu(false, 0)).isEqualTo(1454); // MSS unknown: the fixed EMSS, not the fallback
        // A fixed EMSS is a ceiling, not a promise: a smaller MSS of the connection wins.
        MpaSettings jumbo = MpaSettings.builder().emss(8948).build();
        assertThat(jumbo.sendMulpdu(false, 1448)).isEqualTo(1442);
        assertThat(jumbo.sendMulpdu(false, 65483)).isEqualTo(Mulpdu.of(8948, false));
        // Only the explicit software-to-software MULPDU goes above the MSS.
        MpaSettings mulpdu = MpaSettings.builder().maxSendUlpdu(4096).build();
        assertThat(mulpdu.emssFromConnection()).isFalse();
        assertThat(mulpdu.sendMulpdu(true, 65483)).isEqualTo(4096);
        assertThat(mulpdu.sendMulpdu(true, 1448)).isEqualTo(4096);
    }

    @Test
    void overEpollLoopbackBothEndsSizeFpdusToTheSocketsMss() throws Exception {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (LoopbackMpa pair = LoopbackMpa.connect(group, EpollServerSocketChannel.class, EpollSocketChannel.class,
                MpaSettings.builder().build(), MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL,
                null, null)) {
            NegotiatedParameters i = pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            NegotiatedParameters r = pair.responder.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            int mss = ConnectionMss.of(pair.initiator.channel);
            assertThat(mss).as("loopback MSS").isGreaterThan(1460);
            assertThat(i.sendMulpdu()).isEqualTo(Mulpdu.of(mss, false)).isGreaterThan(1454);
            assertThat(r.sendMulpdu()).isEqualTo(Mulpdu.of(ConnectionMss.of(pair.responder.channel), false));
            // A ULPDU of the new MULPDU crosses as one FPDU.
            byte[] ulpdu = new byte[i.sendMulpdu()];
            new Random(1).nextBytes(ulpdu);
            pair.initiator.send(ulpdu);
            assertThat(pair.responder.take()).isEqualTo(ulpdu);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * io_uring has no TCP_INFO in Netty's API; TCP_MAXSEG gives the same number on a connected
     * socket. Without it MULPDU fell back to 1442 there, and a 1 MiB RDMA Write took 728 FPDUs
     * instead of 17 over loopback (issue 15).
     */
    @Test
    void overIoUringLoopbackBothEndsSizeFpdusToTheSocketsMss() throws Exception {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available here: " + IoUring.unavailabilityCause());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory());
        try (LoopbackMpa pair = LoopbackMpa.connect(group, IoUringServerSocketChannel.class, IoUringSocketChannel.class,
                MpaSettings.builder().build(), MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL,
                null, null)) {
            NegotiatedParameters i = pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            NegotiatedParameters r = pair.responder.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            int mss = ConnectionMss.of(pair.initiator.channel);
            assertThat(mss).as("loopback MSS").isGreaterThan(1460);
            assertThat(i.mulpduFromConnection()).isTrue();
            assertThat(i.sendMulpdu()).isEqualTo(Mulpdu.of(mss, false)).isGreaterThan(1454);
            assertThat(r.sendMulpdu()).isEqualTo(Mulpdu.of(ConnectionMss.of(pair.responder.channel), false));
            byte[] ulpdu = new byte[i.sendMulpdu()];
            new Random(2).nextBytes(ulpdu);
            pair.initiator.send(ulpdu);
            assertThat(pair.responder.take()).isEqualTo(ulpdu);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** Both ways of asking (TCP_INFO's tcpi_snd_mss, TCP_MAXSEG) agree on one epoll socket. */
    @Test
    void overEpollTcpMaxsegIsTcpInfosSendMss() throws Exception {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (LoopbackMpa pair = LoopbackMpa.connect(group, EpollServerSocketChannel.class, EpollSocketChannel.class,
                MpaSettings.builder().build(), MpaSettings.builder().build(), ConnectRequestHandler.ACCEPT_ALL,
                null, null)) {
            pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            EpollSocketChannel ch = (EpollSocketChannel) pair.initiator.channel;
            // IPPROTO_TCP 6, TCP_MAXSEG 2 (Linux).
            IntegerUnixChannelOption maxseg = new IntegerUnixChannelOption("TCP_MAXSEG test", 6, 2);
            int[] both = ch.eventLoop().submit(() -> new int[] {ConnectionMss.of(ch), ch.config().getOption(maxseg)})
                    .get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(both[0]).isGreaterThan(1460);
            assertThat(both[1]).isEqualTo(both[0]);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void overEpollAFixedEmssStillWins() throws Exception {
        assumeTrue(Epoll.isAvailable(), "native epoll is not available here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        MpaSettings fixed = MpaSettings.builder().emss(1460).build();
        try (LoopbackMpa pair = LoopbackMpa.connect(group, EpollServerSocketChannel.class, EpollSocketChannel.class,
                fixed, fixed, ConnectRequestHandler.ACCEPT_ALL, null, null)) {
            assertThat(pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1454);
            assertThat(pair.responder.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1454);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void overNioTheMssIsUnknownAndTheFallbackEmssApplies() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (LoopbackMpa pair = LoopbackMpa.connect(group, MpaSettings.builder().build(), MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL)) {
            // 1500 - 40 - 12: one TCP segment of an Ethernet path with timestamps, whatever the path is.
            assertThat(pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1442);
            assertThat(pair.responder.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1442);
            assertThat(ConnectionMss.of(pair.initiator.channel)).isZero();
            assertThat(ConnectionMss.ipv6(pair.initiator.channel)).isFalse();
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void overNioAndIpv6TheFallbackEmssIs20OctetsSmaller() throws Exception {
        assumeTrue(ipv6Loopback(), "no IPv6 loopback here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (LoopbackMpa pair = LoopbackMpa.connect(group, "::1", NioServerSocketChannel.class,
                NioSocketChannel.class, MpaSettings.builder().build(), MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL, null, null)) {
            // 1500 - 40 (IPv6) - 20 (TCP) - 12 (timestamps) = 1428 -> MULPDU 1422, both ends.
            assertThat(ConnectionMss.ipv6(pair.initiator.channel)).isTrue();
            assertThat(pair.initiator.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1422);
            assertThat(pair.responder.startup.get(TestUlp.WAIT_SECONDS, TimeUnit.SECONDS).sendMulpdu()).isEqualTo(1422);
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static boolean ipv6Loopback() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("::1"))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
