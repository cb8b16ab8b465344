package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;

/** The arithmetic of interleaved runs: windows added up, medians of their ratios, and the settings' rules. */
class InterleavedWindowTest {

    @Test
    void windowsAddUpByMessagesAndTimeWithTheHighestPeak() {
        // 1000 messages in 1 s and 3000 in 2 s: 4000 in 3 s, not the mean of the two rates.
        BandwidthResult a = BandwidthResult.of(4096, 1000, 1_000_000_000L, 5e6);
        BandwidthResult b = BandwidthResult.of(4096, 3000, 2_000_000_000L, 7e6);

        BandwidthResult both = BandwidthResult.combined(4096, Arrays.asList(a, null, b));

        assertThat(both.iterations()).isEqualTo(4000);
        assertThat(both.messagesPerSecond()).isCloseTo(4000 / 3.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(both.averageBytesPerSecond()).isCloseTo(4000 * 4096 / 3.0, org.assertj.core.data.Offset.offset(1e-3));
        assertThat(both.peakBytesPerSecond()).isEqualTo(7e6);
        assertThat(BandwidthResult.combined(4096, Arrays.asList(null, new BandwidthResult(4096, 0, 0, 0, 0)))
                .iterations()).isZero();
    }

    @Test
    void cpuAddsUpAndIsUnknownIfAnyWindowIsUnknown() {
        CpuUsage a = new CpuUsage(10, 1, 100, 2, true);
        CpuUsage b = new CpuUsage(30, 2, 300, 3, true);

        assertThat(CpuUsage.combined(List.of(a, b))).isEqualTo(new CpuUsage(40, 3, 400, 5, true));
        assertThat(CpuUsage.combined(Arrays.asList(a, null))).isNull();
        assertThat(CpuUsage.combined(List.of())).isNull();
    }

    @Test
    void theMedianSkipsUnknownRatios() {
        List<InterleavedWindow> windows = List.of(window(3, 1), window(1, 1), window(2, 1), window(5, 0));

        // RDMA / raw TCP: 3, 1, 2 and unknown (no TCP messages): the median of 1, 2, 3.
        assertThat(InterleavedWindow.median(windows, InterleavedWindow::ratio)).isEqualTo(2.0);
        assertThat(InterleavedWindow.median(windows.subList(0, 2), InterleavedWindow::ratio)).isEqualTo(2.0);
        assertThat(InterleavedWindow.median(List.of(window(1, 0)), InterleavedWindow::ratio)).isNaN();
        // CPU per octet: RDMA 2 ns, raw TCP 1 ns in each window with CPU figures.
        assertThat(InterleavedWindow.median(windows, InterleavedWindow::cpuRatio)).isEqualTo(2.0);
    }

    @Test
    void onlyBandwidthTestsByDurationAreInterleaved() {
        BenchSettings byDuration = settings(BenchTest.WRITE, 0, 2);
        assertThat(byDuration.withInterleave(4).interleave()).isEqualTo(4);
        assertThat(byDuration.withInterleave(4).withPoll(PollMode.EVENT).withPcap(null).interleaved()).isTrue();
        assertThat(byDuration.interleaved()).isFalse();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> byDuration.withInterleave(0));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> settings(BenchTest.WRITE, 100, 0).withInterleave(2));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> settings(BenchTest.LAT_SEND, 0, 2).withInterleave(2));
    }

    /** A window whose RDMA moved {@code rdmaRate} times raw TCP's rate (TCP: {@code tcpMessages} in 1 s). */
    private static InterleavedWindow window(int rdmaRate, int tcpMessages) {
        BandwidthResult tcp = tcpMessages == 0 ? null : BandwidthResult.of(1024, tcpMessages * 100L, 1_000_000_000L, 0);
        BandwidthResult rdma = BandwidthResult.of(1024, rdmaRate * 100L, 1_000_000_000L, 0);
        CpuUsage rdmaCpu = new CpuUsage(2 * 1024 * 100L * rdmaRate, 0, 1024 * 100L * rdmaRate, 100, true);
        CpuUsage tcpCpu = tcpMessages == 0 ? null : new CpuUsage(1024 * 100L * tcpMessages, 0, 1024 * 100L * tcpMessages, 100,
                true);
        return new InterleavedWindow(rdma, rdmaCpu, tcp, tcpCpu, null, null);
    }

    private static BenchSettings settings(BenchTest test, long iterations, double seconds) {
        return new BenchSettings(test, List.of(1024), iterations, seconds, 0, 1, 8, NegotiationMode.REQUIRE, false, 2, 0,
                Transport.NIO, true);
    }
}
