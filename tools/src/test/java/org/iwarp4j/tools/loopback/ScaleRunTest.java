package org.iwarp4j.tools.loopback;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;

/**
 * {@code LoopbackBench scale}: the open-file budget it checks before connecting, and the two-process mode
 * with a few queue pairs: every slice verified at the server in the child JVM, and the child gone
 * afterwards. The shape, never the speed.
 */
class ScaleRunTest {

    @Test
    void theBudgetCountsTwoSocketsPerQueuePairInOneJvmAndOneWithTheServerOutside() {
        FdBudget both = FdBudget.of(100, true);
        FdBudget client = FdBudget.of(100, false);
        assertThat(both.sockets()).isEqualTo(201);
        assertThat(client.sockets()).isEqualTo(100);
        assertThat(both.needed() - client.needed()).isBetween(100L, 102L); // open count may move by a descriptor
        assertThat(both.limit()).isEqualTo(FdBudget.processLimit());
    }

    @Test
    void aRunOverTheLimitIsRefusedWithOneLineNamingTheWayOut() {
        FdBudget budget = new FdBudget(20_100, 20_000, 20_001);
        assertThat(budget.fits()).isFalse();
        assertThat(budget.largestOneJvmRun()).isEqualTo(9950); // 99 open and headroom + 2 * 9950 + listener = 20000
        String line = budget.describe(10_000, true);
        assertThat(line).doesNotContain("\n").contains("20100").contains("20000").contains("--server-process")
                .contains("--qps 9950");
        assertThat(new FdBudget(500, 20_000, 401).fits()).isTrue();
        assertThat(new FdBudget(500, -1, 401).fits()).as("no limit known").isTrue();
    }

    @Test
    void theOneJvmRunRefusesBeforeConnectingWhenTheLimitIsTooLow() {
        long limit = FdBudget.processLimit();
        org.assertj.core.api.Assumptions.assumeThat(limit).isPositive().isLessThan(Integer.MAX_VALUE / 2);
        int qps = (int) (limit / 2) + 1;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ScaleRun.run(qps, 64, 0, 0, Map.of(),
                        Transport.best(), false, new PrintStream(printed, true, StandardCharsets.UTF_8)))
                .isInstanceOf(FdBudget.TooFewFileDescriptors.class).hasMessageContaining("ulimit -n")
                .hasMessageContaining("--server-process");
        assertThat(printed.size()).as("nothing started").isZero();
    }

    @Test
    void twoProcessesVerifyEverySliceAndTheChildIsGoneAfterwards() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ScaleRun.Result result = ScaleRun.run(20, 4096, 0.1, 0.2, Map.of(), Transport.best(), true,
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(result.qps()).isEqualTo(20);
        assertThat(result.verified()).as(output).isEqualTo(20);
        assertThat(output).contains("20 of 20 target slices verified").contains("server RNIC in child process "
                + result.serverPid());
        assertThat(result.serverPid()).isNotEqualTo(ProcessHandle.current().pid());
        assertThat(result.serverHeapPerQpKib()).as("the child reported its heap").isNotNaN();
        Optional<ProcessHandle> child = ProcessHandle.of(result.serverPid());
        assertThat(child.map(ProcessHandle::isAlive).orElse(false)).as("child process alive").isFalse();
        assertThat(ProcessHandle.current().children().filter(p -> p.pid() == result.serverPid()).count()).isZero();
    }

    @Test
    void theChildEndsByItselfWhenItsParentStopsTalking() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ScaleRun.ChildServer child = ScaleRun.ChildServer.start(4, 64, Map.of(), Transport.best(),
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertThat(child.address().getPort()).isPositive();
            assertThat(child.process.isAlive()).isTrue();
            child.commands.close(); // what the child sees when the parent JVM dies: end of stdin, no "exit"
            assertThat(child.process.waitFor(60, TimeUnit.SECONDS)).as("child exited on its own").isTrue();
            assertThat(child.process.exitValue()).isZero();
        } finally {
            child.process.destroyForcibly();
        }
    }
}
