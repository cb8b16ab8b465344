package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.iwarp4j.interop.peer.FakeShells.Guest;
import org.iwarp4j.interop.peer.FakeShells.Ssh;
import org.junit.jupiter.api.Test;

/**
 * The liveness probe without a VM: QEMU's state and the two ssh attempts are stand-ins run on
 * this host (FakeShells), so each way a guest can be gone, or not, is exercised directly.
 */
class VmLivenessTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final String CONSOLE = "--- the guest's last 40 console lines (all of them: /x/console-tcg.log) ---\n"
            + "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:";

    private final AtomicReference<String> qemu = new AtomicReference<>(QemuVm.RUNNING);
    /** What QEMU's threads got so far; by default they run all the time and never wait for a CPU. */
    private final AtomicReference<Supplier<Optional<VmLiveness.CpuSample>>> qemuCpu = new AtomicReference<>(
            () -> Optional.of(new VmLiveness.CpuSample(System.nanoTime(), 0)));

    private VmLiveness liveness(PeerShell master, PeerShell fresh) {
        return new VmLiveness(master, fresh, qemu::get, () -> CONSOLE, () -> "SysRq sent", () -> qemuCpu.get().get(),
                TIMEOUT);
    }

    @Test
    void aGuestThatRunsTrueOverTheMasterConnectionAnswers() {
        Ssh master = new Ssh();
        Ssh fresh = new Ssh();
        VmLiveness liveness = liveness(master, fresh);

        assertThat(liveness.probe("'x' still running after PT2M")).isEmpty();

        assertThat(liveness.gone()).isEmpty();
        assertThat(master.launches).hasValue(1);
        assertThat(fresh.launches).as("no fresh connection needed").hasValue(0);
    }

    @Test
    void aGuestWhoseMasterConnectionDiedButThatAcceptsAFreshOneAnswers() {
        Ssh fresh = new Ssh();
        VmLiveness liveness = liveness(new Ssh(Guest.UNREACHABLE), fresh);

        assertThat(liveness.probe("'x' exit 255")).isEmpty();

        assertThat(fresh.launches).hasValue(1);
        assertThat(liveness.gone()).isEmpty();
    }

    @Test
    void aPausedVmIsGoneWithoutWaitingForSsh() {
        qemu.set("paused");
        Ssh master = new Ssh(Guest.HANGS);
        VmLiveness liveness = liveness(master, new Ssh(Guest.HANGS));

        Optional<String> gone = liveness.probe("'echo 0 > /sys/kernel/tracing/events/rpcrdma/enable' still running");

        assertThat(gone).hasValueSatisfying(evidence -> assertThat(evidence)
                .contains("first noticed: 'echo 0 > /sys/kernel/tracing/events/rpcrdma/enable' still running")
                .contains("QEMU does not run the guest: its state is paused")
                .contains("QEMU run state (QMP query-status): paused")
                .contains("rcu_preempt detected stalls")
                .contains("console-tcg.log")
                .doesNotContain("SysRq"));
        assertThat(master.launches).as("QEMU's word is enough").hasValue(0);
    }

    @Test
    void aRunningGuestThatAnswersNeitherConnectionIsGoneWithinTheProbeTimeout() {
        Ssh master = new Ssh(Guest.HANGS);
        Ssh fresh = new Ssh(Guest.UNREACHABLE);
        VmLiveness liveness = liveness(master, fresh);
        long start = System.nanoTime();

        Optional<String> gone = liveness.probe("'rpc.nfsd 0' exit 255");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plusSeconds(10));
        assertThat(gone).hasValueSatisfying(evidence -> assertThat(evidence)
                .contains("QEMU runs the guest (or its monitor did not say), but it did not run 'true' over ssh "
                        + "within PT3S")
                .contains("through the master connection: no answer")
                .contains("over a fresh connection (attempt 1): exit 255, stderr: ssh: connect to host 127.0.0.1 "
                        + "port 10022: " + FakeShells.BANNER_TIMEOUT)
                .contains("QEMU's threads during the probe: ran ")
                .contains("QEMU run state (QMP query-status): running")
                .contains("the guest's own account: SysRq sent")
                .contains("rcu_preempt detected stalls"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("fast failures decide nothing before the deadline")
                .isGreaterThanOrEqualTo(TIMEOUT);
        assertThat(fresh.launches.get()).as("a fresh connection that fails fast is tried again")
                .isGreaterThan(1).isLessThanOrEqualTo((int) TIMEOUT.dividedBy(VmLiveness.RETRY_PAUSE) + 1);
    }

    @Test
    void aGuestThatHangsOnBothConnectionsIsGoneAtTheDeadlineNotBefore() {
        Ssh master = new Ssh(Guest.HANGS);
        Ssh fresh = new Ssh(Guest.HANGS);
        VmLiveness liveness = liveness(master, fresh);
        long start = System.nanoTime();

        Optional<String> gone = liveness.probe("'x' still running after PT2M");

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isGreaterThanOrEqualTo(TIMEOUT).isLessThan(TIMEOUT.plusSeconds(10));
        assertThat(gone).hasValueSatisfying(evidence -> assertThat(evidence)
                .contains("through the master connection: no answer")
                .contains("over a fresh connection (attempt 1): no answer"));
        assertThat(fresh.launches).as("a hanging attempt is waited for, not replaced").hasValue(1);
    }

    @Test
    void aFreshConnectionThatFailsOnceThenAnswersMeansTheGuestAnswers() {
        Ssh master = new Ssh(Guest.UNREACHABLE);
        Ssh fresh = new Ssh(Guest.UNREACHABLE, Guest.ANSWERS);
        VmLiveness liveness = liveness(master, fresh);

        assertThat(liveness.probe("'x' exit 255")).isEmpty();

        assertThat(liveness.gone()).isEmpty();
        assertThat(fresh.launches).hasValue(2);
    }

    @Test
    void aMonitorThatDoesNotAnswerLeavesItToSsh() {
        qemu.set("unknown: QMP did not answer query-status within PT10S");
        Ssh master = new Ssh();
        VmLiveness liveness = liveness(master, new Ssh());

        assertThat(liveness.probe("'x' exit 255")).as("the guest answers ssh").isEmpty();

        assertThat(master.launches).hasValue(1);
    }

    @Test
    void definitiveQemuStatesSettleItAndUnknownOnesDoNot() {
        assertThat(List.of("paused", "guest-panicked", "internal-error", "shutdown", "exited: start-vm.sh ended"))
                .allMatch(VmLiveness::settled);
        assertThat(List.of(QemuVm.RUNNING, "unknown: QMP did not answer query-status within PT10S",
                "unknown: QMP query-status failed: java.io.IOException", "unknown: interrupted asking QMP"))
                .noneMatch(VmLiveness::settled);
    }

    @Test
    void anInterruptedCallerGetsAFullProbeAndItsInterruptBack() {
        Ssh fresh = new Ssh();
        VmLiveness liveness = liveness(new Ssh(Guest.UNREACHABLE), fresh);
        Thread.currentThread().interrupt();
        try {
            assertThat(liveness.probe("'x' exit 255")).as("a fresh connection answered").isEmpty();

            assertThat(Thread.currentThread().isInterrupted()).as("interrupt restored").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(fresh.launches).hasValue(1);
    }

    @Test
    void aProbeInterruptedWhileItWaitsGivesNoVerdict() throws InterruptedException {
        Ssh hangs = new Ssh(Guest.HANGS);
        CountDownLatch probing = new CountDownLatch(1);
        PeerShell master = command -> {
            probing.countDown();
            return hangs.launch(command);
        };
        VmLiveness liveness = liveness(master, new Ssh(Guest.HANGS));
        AtomicReference<Optional<String>> result = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        Thread prober = new Thread(() -> {
            result.set(liveness.probe("'x' still running"));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        prober.start();
        assertThat(probing.await(10, TimeUnit.SECONDS)).isTrue();
        prober.interrupt();
        prober.join(TIMEOUT.plusSeconds(10).toMillis());

        assertThat(prober.isAlive()).isFalse();
        assertThat(result.get()).as("unconfirmed, not gone").isEmpty();
        assertThat(liveness.gone()).isEmpty();
        assertThat(interruptedAfter.get()).isTrue();
    }

    @Test
    void anIdleQemuIsNotAStarvedOne() {
        // A hung guest whose tasks all block: QEMU runs little, and waits for no CPU either.
        qemuCpu.set(() -> Optional.of(new VmLiveness.CpuSample(System.nanoTime() / 100, 0)));
        VmLiveness liveness = liveness(new Ssh(Guest.HANGS), new Ssh(Guest.HANGS));

        assertThat(liveness.probe("'x' still running after PT2M")).as("gone").isPresent();
    }

    @Test
    void aProbeDuringWhichTheHostStarvedQemuGivesNoVerdict() {
        // QEMU's threads wait for a CPU as the clock runs, and get none.
        qemuCpu.set(() -> Optional.of(new VmLiveness.CpuSample(1_000_000, System.nanoTime())));
        VmLiveness liveness = liveness(new Ssh(Guest.HANGS), new Ssh(Guest.HANGS));

        assertThat(liveness.probe("'x' still running after PT2M")).as("unconfirmed: host starved QEMU").isEmpty();

        assertThat(liveness.gone()).isEmpty();
    }

    @Test
    void theEvidenceKeepsOnlyTheStartOfWhatTheFailedCommandPrinted() {
        qemu.set("paused");
        String output = "x".repeat(10_000);

        String evidence = liveness(new Ssh(), new Ssh()).probe("'cat big' still running after PT2M\n--- stdout so far ---\n"
                + output).orElseThrow();

        assertThat(evidence).contains("first noticed: 'cat big' still running after PT2M\n--- stdout so far ---\nxxx")
                .contains("more characters]").doesNotContain(output.substring(0, VmLiveness.TRIGGER_KEPT));
    }

    @Test
    void aGuestFoundGoneStaysGoneWithoutAnotherProbe() {
        qemu.set("exited: start-vm.sh ended with status 0");
        Ssh master = new Ssh();
        VmLiveness liveness = liveness(master, new Ssh());
        String first = liveness.probe("first").orElseThrow();

        qemu.set(QemuVm.RUNNING);  // whatever QEMU says now, the verdict stands

        assertThat(liveness.probe("second")).hasValue(first);
        assertThat(liveness.gone()).hasValue(first);
        assertThat(master.launches).hasValue(0);
    }
}
