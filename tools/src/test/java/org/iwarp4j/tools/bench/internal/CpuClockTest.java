package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.CpuUsage;
import org.junit.jupiter.api.Test;

/**
 * The CPU accounting of {@code iwarp bench}: work done on a Netty event loop (the kind the RNICs and
 * the TCP baselines use) counts as event-loop time, work done on a named application thread as
 * application time, and the figures per octet and per message are those times over what was moved.
 */
class CpuClockTest {

    /** Burns at least {@code nanos} of this thread's own CPU time. */
    private static long burn(long nanos) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        long x = 1;
        while (threads.getCurrentThreadCpuTime() - start < nanos) {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1;
            }
        }
        return x;
    }

    @Test
    void eventLoopWorkAndApplicationWorkAreCountedApart() throws Exception {
        assumeThat(CpuClock.available()).as("thread CPU time measured by this JVM").isTrue();
        EventLoopGroup group = NettyIo.group(Transport.NIO);
        try {
            CpuClock clock = new CpuClock(List.of(Thread.currentThread()), true);
            CpuClock.Mark start = clock.mark();
            group.submit(() -> burn(30_000_000)).get(30, TimeUnit.SECONDS);
            burn(10_000_000);
            CpuUsage used = clock.since(start, 1_000_000, 10);
            assertThat(used.eventLoopNanos()).as("the event loop's 30 ms").isGreaterThanOrEqualTo(30_000_000);
            assertThat(used.applicationNanos()).as("this thread's 10 ms").isGreaterThanOrEqualTo(10_000_000);
            assertThat(used.bothEnds()).isTrue();
            assertThat(used.scope()).isEqualTo("both ends");
            assertThat(used.eventLoopNanosPerOctet()).isEqualTo(used.eventLoopNanos() / 1e6);
            assertThat(used.applicationMicrosPerMessage()).isEqualTo(used.applicationNanos() / 1e3 / 10);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * A thread registered as it starts, during a measurement, counts as an application thread:
     * the plain-TCP latency echo's responder starts with its connection, and its CPU time is TCP's
     * as the RDMA responder's thread's is RDMA's.
     */
    @Test
    void aThreadRegisteredAsItStartsCountsAsTheApplications() throws Exception {
        assumeThat(CpuClock.available()).as("thread CPU time measured by this JVM").isTrue();
        CpuClock clock = new CpuClock(List.of(), true);
        CpuClock.Mark start = clock.mark();
        java.util.concurrent.CountDownLatch burnt = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch end = new java.util.concurrent.CountDownLatch(1);
        Thread responder = new Thread(() -> {
            burn(20_000_000);
            burnt.countDown();
            try {
                end.await(30, TimeUnit.SECONDS); // alive when the clock is read: an ended thread's time is gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "responder");
        clock.register(responder);
        responder.start();
        try {
            assertThat(burnt.await(30, TimeUnit.SECONDS)).isTrue();
            CpuUsage used = clock.since(start, 1, 1);
            assertThat(used.applicationNanos()).as("the registered thread's 20 ms").isGreaterThanOrEqualTo(20_000_000);
        } finally {
            end.countDown();
            responder.join(30_000);
        }
    }

    @Test
    void ratiosCompareEventLoopTimePerOctet() {
        CpuUsage rdma = new CpuUsage(3_000, 100, 1_000, 1, false);
        CpuUsage tcp = new CpuUsage(4_000, 900, 2_000, 2, false);
        assertThat(rdma.eventLoopRatio(tcp)).isEqualTo(1.5); // 3 ns per octet against 2
        assertThat(rdma.eventLoopRatio(null)).isNaN();
        assertThat(new CpuUsage(0, 0, 0, 0, false).eventLoopNanosPerOctet()).isNaN();
        assertThat(CpuClock.none().since(CpuClock.none().mark(), 1, 1)).isNull();
    }
}
