package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.iwarp4j.interop.peer.FakeShells.Guest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The extension's handling of a peer that stops responding, without a VM: small test classes
 * (nested and static, so neither surefire nor the engine runs them on their own) run through the
 * Jupiter engine in this JVM (and only then: {@code @EnabledIf}) against stand-in VMs whose ssh runs commands on this host until the
 * test makes the guest hang or become unreachable. The real liveness probe ({@link VmLiveness})
 * and command plumbing ({@link BackgroundCommand}) are used, with a 2 s probe timeout.
 */
class LinuxPeerExtensionTest {

    private static final String LOG_DIR = "iwarp4j.interop.logDir";
    /** Tests that ran though they should not have. */
    static final List<String> NEVER_RAN = new CopyOnWriteArrayList<>();
    /** The tests after which OurBugThenTheGuestHangs's @AfterEach ran. */
    static final List<String> AFTER_EACH = new CopyOnWriteArrayList<>();
    /** The stand-in VMs of one engine run, in the order they were opened. */
    static final List<FakeVm> VMS = new CopyOnWriteArrayList<>();
    /** Which VM each class got, by simple name. */
    static final Map<String, FakeVm> GOT = new ConcurrentHashMap<>();
    /** Whether the engine run is under way: the nested classes run only then (see PeerHangRecoveryTest). */
    private static volatile boolean engineRun;
    static final LinuxPeerExtension.Opener OPENER = settings -> {
        FakeVm vm = new FakeVm(VMS.size() + 1);
        VMS.add(vm);
        return vm;
    };

    @Test
    void aHangInATestOrInAfterAllIsQuarantinedAndTheNextClassGetsAFreshPeer(@TempDir Path logDir) throws IOException {
        VMS.clear();
        GOT.clear();
        NEVER_RAN.clear();
        AFTER_EACH.clear();
        EngineExecutionResults results;
        engineRun = true;
        String oldLogDir = System.setProperty(LOG_DIR, logDir.toString());
        try {
            results = EngineTestKit.engine("junit-jupiter")
                    .configurationParameter("junit.jupiter.testclass.order.default",
                            ClassOrderer.OrderAnnotation.class.getName())
                    .selectors(selectClass(HangInATest.class), selectClass(HangInAfterAll.class),
                            selectClass(FailuresOnALivePeer.class), selectClass(NextClass.class),
                            selectClass(OurBugThenTheGuestHangs.class), selectClass(KernelFailureThenHang.class))
                    .execute();
        } finally {
            engineRun = false;
            if (oldLogDir == null) {
                System.clearProperty(LOG_DIR);
            } else {
                System.setProperty(LOG_DIR, oldLogDir);
            }
        }
        Map<String, TestExecutionResult> tests = finished(results.testEvents().finished().list());
        Map<String, TestExecutionResult> classes = finished(results.containerEvents().finished().list());

        // The hang in a test body: that test and everything after it in its class are quarantined.
        assertQuarantined(tests.get("guestBecomesUnreachable()"), "HangInATest, test guestBecomesUnreachable()",
                "'echo again' exit 255", FakeShells.BANNER_TIMEOUT);
        assertThat(skipped(results, "laterTestOfTheSameClass()")).startsWith(LinuxPeerExtension.QUARANTINED)
                .contains("HangInATest, test laterTestOfTheSameClass()")
                .contains("not run: the peer was found gone earlier in this class")
                .contains("rcu_preempt detected stalls");
        assertQuarantined(classes.get("LinuxPeerExtensionTest$HangInATest"), "HangInATest, @AfterAll", "'echo cleanup' not run");
        assertThat(VMS.get(0).launchesWhileGone).as("nothing launched on a peer known gone").hasValue(0);

        // The hang in @AfterAll (CI's case): its tests passed; the class is quarantined; a fresh peer.
        assertThat(GOT.get("HangInAfterAll")).isSameAs(VMS.get(1));
        assertThat(tests.get("passes()").getStatus()).isEqualTo(Status.SUCCESSFUL);
        assertQuarantined(classes.get("LinuxPeerExtensionTest$HangInAfterAll"), "HangInAfterAll, @AfterAll",
                "still running after PT0.5S: 'echo 0 > /sys/kernel/tracing/events/rpcrdma/enable'",
                "through the master connection: no answer");

        // On a peer that answers, failures stay failures, and the peer stays.
        assertThat(GOT.get("FailuresOnALivePeer")).isSameAs(VMS.get(2));
        assertThat(tests.get("aCommandFails()").getStatus()).isEqualTo(Status.FAILED);
        assertThat(tests.get("aCommandFails()").getThrowable()).get().isExactlyInstanceOf(PeerCommandException.class);
        assertThat(tests.get("anAssertionFails()").getStatus()).isEqualTo(Status.FAILED);
        assertThat(tests.get("anAssertionFails()").getThrowable()).get().isInstanceOf(AssertionError.class);
        assertThat(classes.get("LinuxPeerExtensionTest$FailuresOnALivePeer").getStatus()).isEqualTo(Status.SUCCESSFUL);
        assertThat(GOT.get("NextClass")).isSameAs(VMS.get(2));
        assertThat(tests.get("runs()").getStatus()).isEqualTo(Status.SUCCESSFUL);

        // Our code's failure (an assertion) stays a failure though the guest then hung in its cleanup;
        // a later assertion failure while the peer is known gone gets the evidence attached.
        assertThat(GOT.get("OurBugThenTheGuestHangs")).isSameAs(VMS.get(2));
        TestExecutionResult ours = tests.get("wrongBytesThenTheCleanupHangs()");
        assertThat(ours.getStatus()).isEqualTo(Status.FAILED);
        assertThat(ours.getThrowable()).get().isInstanceOf(AssertionError.class)
                .satisfies(e -> assertThat(e.getSuppressed()).anyMatch(PeerGoneException.class::isInstance));
        assertThat(skipped(results, "anAssertionAfterTheGuestHung()")).startsWith(LinuxPeerExtension.QUARANTINED)
                .contains("not run: the peer was found gone earlier in this class");
        assertThat(NEVER_RAN).as("a test of a class whose peer is gone is not run").isEmpty();
        assertThat(AFTER_EACH).containsExactly("wrongBytesThenTheCleanupHangs()");
        TestExecutionResult afterAll = classes.get("LinuxPeerExtensionTest$OurBugThenTheGuestHangs");
        assertThat(afterAll.getStatus()).isEqualTo(Status.FAILED);
        assertThat(afterAll.getThrowable().orElseThrow()).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 buffer leaked")
                .satisfies(e -> assertThat(e.getSuppressed()).anySatisfy(note -> assertThat(note)
                        .isInstanceOf(LinuxPeerExtension.PeerStateNote.class)
                        .hasMessageContaining("not quarantined").hasMessageContaining("rcu_preempt detected stalls")));

        // A guest whose kernel reported a BUG during the class and then stopped answering: a failure.
        assertThat(GOT.get("KernelFailureThenHang")).isSameAs(VMS.get(3));
        TestExecutionResult kernel = tests.get("ourTrafficBreaksTheGuestKernel()");
        assertThat(kernel.getStatus()).isEqualTo(Status.FAILED);
        assertThat(kernel.getThrowable()).get().isInstanceOf(PeerGoneException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).anySatisfy(note -> assertThat(note)
                        .hasMessageContaining("kernel reported a failure of its own")
                        .hasMessageContaining("console-fake.log:2: BUG: kernel NULL pointer dereference")));

        assertThat(VMS).hasSize(4).allSatisfy(vm -> assertThat(vm.closed).as(vm + " closed").isTrue());
        assertThat(Files.readString(logDir.resolve("quarantines.txt")))
                .contains("5 quarantined")
                .contains("HangInATest, test guestBecomesUnreachable(): the peer VM stopped responding")
                .contains("HangInATest, test laterTestOfTheSameClass(): not run")
                .contains("HangInAfterAll, @AfterAll")
                .doesNotContain("wrongBytesThenTheCleanupHangs").doesNotContain("KernelFailureThenHang");
    }

    @Test
    void kernelFailuresAreToldApartFromStalls() {
        assertThat(List.of("[  12.3] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                "[  12.3] Oops: 0000 [#1] PREEMPT SMP NOPTI",
                "[  12.4] general protection fault, probably for non-canonical address 0xdead000000000100",
                "[  12.5] WARNING: CPU: 1 PID: 88 at drivers/infiniband/sw/siw/siw_qp_tx.c:1013 siw_qp_sq_process",
                "[  12.6] Kernel panic - not syncing: Fatal exception in interrupt"))
                .allMatch(QemuVm::isKernelFailure);
        assertThat(List.of("[  99.1] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [kworker/0:1:12]",
                "[  99.2] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                "[  99.3] INFO: task nfsd:321 blocked for more than 120 seconds.",
                "[  99.4] Kernel panic - not syncing: softlockup: hung tasks",
                "[  99.5] sysrq: Show backtrace of all active CPUs"))
                .noneMatch(QemuVm::isKernelFailure);
    }

    @Test
    void onlyFailuresADeadPeerCausesCanBeQuarantined() {
        assertThat(LinuxPeerExtension.peerShaped(new PeerCommandException("x"))).isTrue();
        assertThat(LinuxPeerExtension.peerShaped(new RuntimeException(new java.util.concurrent.TimeoutException()))).isTrue();
        assertThat(LinuxPeerExtension.peerShaped(new AssertionError("mount", new IOException("reset")))).isTrue();
        assertThat(LinuxPeerExtension.peerShaped(new RpcTimeoutStandInTimeoutException())).as("by name, as RpcTimeoutException").isTrue();
        AssertionError wrongBytes = new AssertionError("expected 2 but was 1");
        wrongBytes.addSuppressed(new PeerGoneException("'x'", "gone", null));
        assertThat(LinuxPeerExtension.peerShaped(wrongBytes)).as("suppressed exceptions do not count").isFalse();
    }

    private static final class RpcTimeoutStandInTimeoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    /** Why the engine skipped the test of that display name. */
    private static String skipped(EngineExecutionResults results, String displayName) {
        return results.testEvents().skipped().list().stream()
                .filter(e -> e.getTestDescriptor().getDisplayName().equals(displayName))
                .map(e -> e.getRequiredPayload(String.class)).findFirst().orElseThrow(() -> new AssertionError(
                        displayName + " not skipped"));
    }

    static boolean inEngineRun() {
        return engineRun;
    }

    private static void assertQuarantined(TestExecutionResult result, String where, String... evidence) {
        assertThat(result.getStatus()).as(String.valueOf(result)).isEqualTo(Status.ABORTED);
        Throwable abort = result.getThrowable().orElseThrow();
        assertThat(abort.getMessage()).startsWith(LinuxPeerExtension.QUARANTINED).contains(where)
                .contains(evidence).contains("rcu_preempt detected stalls").contains("console-fake.log");
    }

    private static Map<String, TestExecutionResult> finished(List<Event> events) {
        return events.stream().collect(Collectors.toMap(e -> e.getTestDescriptor().getDisplayName(),
                e -> e.getRequiredPayload(TestExecutionResult.class), (a, b) -> a));
    }

    /** A VM whose guest answers until told otherwise. */
    static final class FakeVm implements WatchedPeer {
        private final int number;
        private final FakeShells.Ssh ssh = new FakeShells.Ssh();
        private final VmLiveness liveness;
        final AtomicInteger launchesWhileGone = new AtomicInteger();
        /** The guest's console lines, printed by the test. */
        final List<String> console = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        FakeVm(int number) {
            this.number = number;
            this.liveness = new VmLiveness(ssh, ssh, () -> QemuVm.RUNNING,
                    () -> "--- the guest's last 40 console lines (all of them: console-fake.log) ---\n"
                            + "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                    () -> "SysRq sent", Optional::empty, Duration.ofSeconds(2));
        }

        static FakeVm of(LinuxPeer peer) {
            return (FakeVm) peer;
        }

        void guest(Guest guest) {
            ssh.guest = guest;
        }

        @Override
        public Liveness liveness() {
            return liveness;
        }

        @Override
        public long consoleMark() {
            return console.size();
        }

        @Override
        public List<String> kernelFailuresSince(long mark) {
            List<String> lines = new ArrayList<>();
            for (int i = (int) mark; i < console.size(); i++) {
                if (QemuVm.isKernelFailure(console.get(i))) {
                    lines.add("console-fake.log:" + (i + 1) + ": " + console.get(i));
                }
            }
            return lines;
        }

        @Override
        public BackgroundCommand start(String shellCommand) {
            return BackgroundCommand.start(command -> {
                if (liveness.gone().isPresent()) {
                    launchesWhileGone.incrementAndGet();
                }
                return ssh.launch(command);
            }, liveness, shellCommand);
        }

        @Override
        public String description() {
            return "fake VM #" + number;
        }

        @Override
        public String rdmaDevice() {
            return "siw0";
        }

        @Override
        public InetAddress peerAddress() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public InetAddress hostAddressSeenByPeer() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public InetAddress hostBindAddress() {
            return InetAddress.getLoopbackAddress();
        }

        @Override
        public InetSocketAddress forwardedPort(int peerPort) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), peerPort);
        }

        @Override
        public void reloadSiw(boolean crcRequired) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public String toString() {
            return description();
        }
    }

    @Order(1)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class HangInATest {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);
        private final LinuxPeer peer;

        HangInATest(LinuxPeer peer) {
            this.peer = peer;
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        @Order(1)
        void guestBecomesUnreachable() {
            assertThat(peer.exec("echo up").stdout()).isEqualTo("up\n");
            FakeVm.of(peer).guest(Guest.UNREACHABLE);
            peer.exec("echo again");
        }

        @Test
        @Order(2)
        void laterTestOfTheSameClass() {
            NEVER_RAN.add("laterTestOfTheSameClass");
            peer.exec("echo never");
        }

        @AfterAll
        static void cleanUp(LinuxPeer peer) {
            peer.exec("echo cleanup");
        }
    }

    /** Like the knfsd fixture: one instance, the peer through the constructor, cleanup in @AfterAll. */
    @Order(2)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class HangInAfterAll {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);
        private final LinuxPeer peer;

        HangInAfterAll(LinuxPeer peer) {
            this.peer = peer;
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        void passes() {
            assertThat(peer.exec("echo up").stdout()).isEqualTo("up\n");
        }

        @AfterAll
        void stopTracing() {
            FakeVm.of(peer).guest(Guest.HANGS);
            peer.exec("echo 0 > /sys/kernel/tracing/events/rpcrdma/enable", Duration.ofMillis(500));
        }
    }

    @Order(3)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    static class FailuresOnALivePeer {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);
        private final LinuxPeer peer;

        FailuresOnALivePeer(LinuxPeer peer) {
            this.peer = peer;
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        void aCommandFails() {
            peer.exec("exit 3").requireSuccess();
        }

        @Test
        void anAssertionFails() {
            assertThat(peer.exec("echo 1").stdout()).isEqualTo("2\n");
        }
    }

    @Order(4)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    static class NextClass {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);

        NextClass(LinuxPeer peer) {
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        void runs() {
        }
    }

    /** An assertion about our own bytes fails; the guest then hangs in the cleanup. */
    @Order(5)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class OurBugThenTheGuestHangs {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);
        private final LinuxPeer peer;

        OurBugThenTheGuestHangs(LinuxPeer peer) {
            this.peer = peer;
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        @Order(1)
        void wrongBytesThenTheCleanupHangs() {
            AssertionError ours = new AssertionError("expected [2] but was [1]");
            FakeVm.of(peer).guest(Guest.UNREACHABLE);
            try {  // as try-with-resources closing a fixture would
                peer.exec("echo cleanup");
            } catch (PeerGoneException e) {
                ours.addSuppressed(e);
            }
            throw ours;
        }

        @AfterEach
        void ourOwnCheckAfterEachTest(TestInfo test) {
            // Runs after the first test only: the second is not run at all, so this cannot be hidden.
            AFTER_EACH.add(test.getDisplayName());
        }

        @AfterAll
        static void ourOwnCheckAfterAll() {
            throw new AssertionError("our own check in @AfterAll fails: 1 buffer leaked");
        }

        @Test
        @Order(2)
        void anAssertionAfterTheGuestHung() {
            NEVER_RAN.add("anAssertionAfterTheGuestHung");
        }
    }

    /** The guest's kernel prints a BUG (our traffic broke it), then stops answering. */
    @Order(6)
    @EnabledIf("org.iwarp4j.interop.peer.LinuxPeerExtensionTest#inEngineRun")
    static class KernelFailureThenHang {
        @RegisterExtension
        static final LinuxPeerExtension PEERS = new LinuxPeerExtension(OPENER);
        private final LinuxPeer peer;

        KernelFailureThenHang(LinuxPeer peer) {
            this.peer = peer;
            GOT.put(getClass().getSimpleName(), FakeVm.of(peer));
        }

        @Test
        void ourTrafficBreaksTheGuestKernel() {
            FakeVm vm = FakeVm.of(peer);
            vm.console.add("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:");
            vm.console.add("BUG: kernel NULL pointer dereference, address: 0000000000000008");
            vm.guest(Guest.UNREACHABLE);
            peer.exec("echo again");
        }
    }
}
