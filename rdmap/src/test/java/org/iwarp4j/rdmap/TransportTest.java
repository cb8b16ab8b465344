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
                // io_uring, asked for where no native transport loads, falls back with a message.
                .contains("warning: IO_URING is not available here (", "); using NIO", "asked for IO_URING, got NIO",
                        "builder: IO_URING is not available here: ")
                .doesNotContain("LEAK:");
    }

    /** io_uring is opt-in: never the default, reported as available exactly when Netty says so. */
    @Test
    void ioUringIsOptInAndReportsItsAvailability() {
        assertThat(Transport.best()).isNotEqualTo(Transport.IO_URING);
        assertThat(Transport.IO_URING.isAvailable()).isEqualTo(io.netty.channel.uring.IoUring.isAvailable());
        assertThat(Transport.IO_URING.unavailabilityCause().isPresent()).isEqualTo(!Transport.IO_URING.isAvailable());
        assertThat(Transport.NIO.isAvailable()).isTrue();
    }

    /** Where io_uring cannot run, asking for it falls back to the best transport and says why; the builder refuses it. */
    @Test
    void anUnavailableTransportFallsBackWithAMessage() {
        assumeTrue(!Transport.IO_URING.isAvailable(), "io_uring is available here");
        List<String> warnings = new java.util.ArrayList<>();
        assertThat(Transport.orBest(Transport.IO_URING, warnings::add)).isEqualTo(Transport.best());
        assertThat(warnings).singleElement().asString().startsWith("IO_URING is not available here (")
                .endsWith("); using " + Transport.best());
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Rnic.builder().transport(Transport.IO_URING))
                .withMessageStartingWith("IO_URING is not available here: ");
    }

    /** Where io_uring runs, an RNIC asked for it gets it: its connections are io_uring channels. */
    @Test
    void ioUringIsSelectedWhenAvailable() throws Exception {
        assumeTrue(Transport.IO_URING.isAvailable(),
                () -> "io_uring unavailable: " + Transport.IO_URING.unavailabilityCause().orElse(""));
        assertThat(Transport.orBest(Transport.IO_URING, w -> { throw new AssertionError(w); }))
                .isEqualTo(Transport.IO_URING);
        List<String> channelTypes = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (RdmaPair pair = new RdmaPair(Rnic.builder().transport(Transport.IO_URING)
                .channelInitializer(ch -> channelTypes.add(ch.getClass().getSimpleName())),
                Rnic.builder().transport(Transport.IO_URING), org.iwarp4j.mpa.MpaSettings.builder().build(),
                b -> b, b -> b, qp -> { }, qp -> { })) {
            assertThat(pair.serverRnic.transport()).isEqualTo(Transport.IO_URING);
            assertThat(channelTypes).isNotEmpty().allMatch(name -> name.startsWith("IoUring"));
        }
    }
}
