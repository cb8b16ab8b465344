package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The recovery from a guest that stops responding, with the real VM: two small test classes run
 * through the Jupiter engine in this JVM (nested and static, so nothing runs them on their own)
 * with a peer of their own, since the engine run has its own root store. The first stops every
 * sshd of its guest (SIGSTOP) in the middle of a test: to the harness that is a hung guest whose
 * QEMU still runs it, as in CI, where a command over the master connection never comes back and a
 * fresh connection gets no banner; unlike a real hang its kernel still runs, so the SysRq dump the
 * probe asks for must show up on the console. It must be quarantined, test and {@code @AfterAll};
 * the second class must get a fresh VM that works. Costs two boots of the VM (tens of seconds
 * each under TCG) and the probe timeout. Runs only where the harness's peer is the VM; a local siw
 * device has no VM to lose. (A guest paused with QMP {@code stop}, QEMU's state then "paused",
 * is {@link VmLivenessTest}'s case.)
 */
class PeerHangRecoveryTest {

    static final Map<String, LinuxPeer> GOT = new ConcurrentHashMap<>();
    /**
     * Whether the engine run below is under way: the nested classes run only then. Surefire, told
     * {@code -Dtest=...Test}, would run them on their own too (its default exclusion of nested
     * classes gives way to the pattern), and the first would stop the JVM's own VM.
     */
    private static volatile boolean engineRun;
    private static final String PROBE_TIMEOUT = "iwarp4j.interop.probeTimeout";
    private static final Duration PROBE = Duration.ofSeconds(10);

    @Test
    void aGuestThatStopsRespondingIsQuarantinedAndTheNextClassGetsAFreshWorkingVm() {
        PeerSettings settings = PeerSettings.fromEnvironment();
        Assumptions.assumeTrue(settings.provider().equals("vm")
                        || settings.provider().equals("auto") && LocalSiwPeer.detect().isEmpty(),
                "the peer here is not the VM");
        GOT.clear();
        // The mechanism, not the default's size, is under test: a shorter probe saves 20 s of VM time.
        String probeTimeout = System.setProperty(PROBE_TIMEOUT, Long.toString(PROBE.toSeconds()));
        EngineExecutionResults results;
        engineRun = true;
        try {
            results = EngineTestKit.engine("junit-jupiter")
                    .configurationParameter("junit.jupiter.testclass.order.default",
                            ClassOrderer.OrderAnnotation.class.getName())
                    .selectors(selectClass(GuestHangsInATest.class), selectClass(NextClassOnAFreshVm.class))
                    .execute();
        } finally {
            engineRun = false;
            if (probeTimeout == null) {
                System.clearProperty(PROBE_TIMEOUT);
            } else {
                System.setProperty(PROBE_TIMEOUT, probeTimeout);
            }
        }
        Map<String, TestExecutionResult> tests = finished(results.testEvents().finished().list());
        Map<String, TestExecutionResult> classes = finished(results.containerEvents().finished().list());
        TestExecutionResult first = classes.get("PeerHangRecoveryTest$GuestHangsInATest");
        String noPeer = first.getThrowable().map(Throwable::getMessage).filter(m -> m.startsWith("no Linux iWARP peer"))
                .orElse(null);
        if (noPeer != null && !settings.required()) {
            Assumptions.abort(noPeer);
        }

        TestExecutionResult hung = tests.get("guestStopsAnsweringMidTest()");
        assertThat(hung.getStatus()).as(String.valueOf(hung)).isEqualTo(Status.ABORTED);
        assertThat(hung.getThrowable().orElseThrow().getMessage())
                .startsWith(LinuxPeerExtension.QUARANTINED)
                .contains("still running after PT10S: 'pkill -STOP -x sshd'")
                .contains("QEMU runs the guest (or its monitor did not say), but it did not run 'true' over ssh within " + PROBE)
                .contains("through the master connection: no answer")
                .contains("QEMU run state (QMP query-status): running")
                .contains("the guest's own account: sent SysRq-9, -l, -w")
                .contains("console lines, at most 150 (all of them: ").contains(".log) ---")
                .contains("sysrq: Show backtrace of all active CPUs")
                .contains("sysrq: Show Blocked State");
        assertThat(first.getStatus()).as("@AfterAll: " + first).isEqualTo(Status.ABORTED);
        assertThat(first.getThrowable().orElseThrow().getMessage()).startsWith(LinuxPeerExtension.QUARANTINED)
                .contains("'echo cleanup' not run");

        TestExecutionResult next = tests.get("freshVmWorks()");
        assertThat(next.getStatus()).as(String.valueOf(next)).isEqualTo(Status.SUCCESSFUL);
        assertThat(GOT.get("next")).isInstanceOf(VmPeer.class).isNotSameAs(GOT.get("hung"));
        assertThat(((VmPeer) GOT.get("hung")).liveness().gone()).isPresent();
        assertThat(((VmPeer) GOT.get("next")).liveness().gone()).isEmpty();
    }

    static boolean inEngineRun() {
        return engineRun;
    }

    private static Map<String, TestExecutionResult> finished(List<Event> events) {
        return events.stream().collect(Collectors.toMap(e -> e.getTestDescriptor().getDisplayName(),
                e -> e.getRequiredPayload(TestExecutionResult.class), (a, b) -> a));
    }

    /** Like the knfsd fixture: one instance, the peer through the constructor, cleanup in @AfterAll. */
    @Order(1)
    @EnabledIf("org.iwarp4j.interop.peer.PeerHangRecoveryTest#inEngineRun")
    @ExtendWith(LinuxPeerExtension.class)
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    static class GuestHangsInATest {
        private final LinuxPeer peer;

        GuestHangsInATest(LinuxPeer peer) {
            this.peer = peer;
            GOT.put("hung", peer);
        }

        @Test
        void guestStopsAnsweringMidTest() {
            assertThat(peer.exec("echo up").stdout()).isEqualTo("up\n");
            // Stops the sshd serving this very command too: its end never comes back.
            peer.exec("pkill -STOP -x sshd", Duration.ofSeconds(10));
        }

        @AfterAll
        void cleanUp() {
            peer.exec("echo cleanup");
        }
    }

    @Order(2)
    @EnabledIf("org.iwarp4j.interop.peer.PeerHangRecoveryTest#inEngineRun")
    @ExtendWith(LinuxPeerExtension.class)
    static class NextClassOnAFreshVm {
        private final LinuxPeer peer;

        NextClassOnAFreshVm(LinuxPeer peer) {
            this.peer = peer;
            GOT.put("next", peer);
        }

        @Test
        void freshVmWorks() {
            assertThat(peer.exec("echo up").requireSuccess().stdout()).isEqualTo("up\n");
            assertThat(peer.exec("rdma link show " + peer.rdmaDevice() + "/1").requireSuccess().stdout())
                    .contains("state ACTIVE");
        }
    }
}
