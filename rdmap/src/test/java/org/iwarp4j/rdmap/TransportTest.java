package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How an Rnic picks its transport: native epoll where Netty's native library loads (the rdmap artifact
 * ships it for Linux x86_64 and aarch64), NIO everywhere else, without any change to the user's build.
 */
class TransportTest {

    @Test
    void epollWhenItsNativeLibraryLoaded() {
        assertThat(Transport.choose(true)).isEqualTo(Transport.EPOLL);
    }

    @Test
    void nioWhenEpollIsUnavailable() {
        assertThat(Transport.choose(false)).isEqualTo(Transport.NIO);
    }

    @Test
    void bestFollowsWhatNettyReports() {
        assertThat(Transport.best()).isEqualTo(Epoll.isAvailable() ? Transport.EPOLL : Transport.NIO);
    }

    @Test
    void theNativeLibraryForThisLinuxCpuIsOnTheClassPath() {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").startsWith("Linux")
                && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64")), "not Linux x86_64/aarch64");
        assertThat(Epoll.isAvailable()).as("epoll unavailable: %s", Epoll.unavailabilityCause()).isTrue();
        try (Rnic rnic = Rnic.builder().build()) {
            assertThat(rnic.transport()).isEqualTo(Transport.EPOLL);
        }
    }

    /**
     * Netty's switch that makes every native transport unavailable stands in for a platform without
     * the native library (macOS, Windows, another CPU): the default Rnic must then run on NIO, and work.
     */
    @Test
    void withoutTheNativeLibraryTheDefaultRnicRunsOnNio() throws Exception {
        ChildJvm.Result result = ChildJvm.run(List.of("-Dio.netty.transport.noNative=true",
                "-Dio.netty.leakDetection.level=PARANOID", "-cp", ChildJvm.testClassPath(),
                TransportFallbackMain.class.getName()), 60);

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output())
                .contains("server transport NIO", "client transport NIO", "received: over the fallback")
                .doesNotContain("LEAK:");
    }
}
