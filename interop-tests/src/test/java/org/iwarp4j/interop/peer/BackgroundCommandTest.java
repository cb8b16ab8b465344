package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The command plumbing every peer uses, run on this host (LocalShell): exit codes, separate
 * streams, waiting for a line, timeouts, and killing a command with everything it started; and
 * what a failure that can mean a gone peer does with the peer's liveness probe.
 */
class BackgroundCommandTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final LocalShell shell = new LocalShell();

    @Test
    void reportsExitCodeAndKeepsTheStreamsApart() {
        ExecResult result = BackgroundCommand.start(shell, "echo out; echo err >&2; echo out2; exit 7").waitFor(TIMEOUT);

        assertThat(result.exitCode()).isEqualTo(7);
        assertThat(result.stdout()).isEqualTo("out\nout2\n");
        assertThat(result.stderr()).isEqualTo("err\n");
        assertThatThrownBy(result::requireSuccess).isInstanceOf(PeerCommandException.class).hasMessageContaining("exit 7");
    }

    @Test
    void awaitLineReturnsTheFirstMatchingLineOnEitherStream() {
        try (BackgroundCommand command = BackgroundCommand.start(shell,
                "echo 'server: starting'; echo 'server: listening on 7174' >&2; exec sleep 60")) {
            assertThat(command.awaitLine("listening on \\d+", TIMEOUT)).isEqualTo("server: listening on 7174");
            assertThat(command.isAlive()).isTrue();
        }
    }

    @Test
    void awaitLineFailsAsSoonAsTheCommandEndsWithoutTheLine() {
        BackgroundCommand command = BackgroundCommand.start(shell, "echo nothing-useful; exit 1");

        assertThatThrownBy(() -> command.awaitLine("listening", Duration.ofMinutes(5)))
                .isInstanceOf(PeerCommandException.class)
                .hasMessageContaining("before the command ended")
                .hasMessageContaining("nothing-useful");
    }

    @Test
    void waitForThrowsWhenTheCommandOutlivesTheTimeout() {
        try (BackgroundCommand command = BackgroundCommand.start(shell, "echo begun; exec sleep 60")) {
            assertThatThrownBy(() -> command.waitFor(Duration.ofMillis(200)))
                    .isInstanceOf(PeerCommandException.class)
                    .hasMessageContaining("still running")
                    .hasMessageContaining("begun");
            assertThat(command.isAlive()).isTrue();
        }
    }

    @Test
    void killStopsTheCommandAndWhatItStartedInTheBackground() {
        String token = "iwarp4j-test-" + UUID.randomUUID();
        BackgroundCommand command = BackgroundCommand.start(shell,
                "bash -c 'exec -a " + token + " sleep 600' & echo started; wait");
        command.awaitLine("^started$", TIMEOUT);
        // One process, or two while the background job is between its fork and its exec (both
        // then show the token); whichever: all must end.
        List<ProcessHandle> sleepers = processesNamed(token);
        assertThat(sleepers).isNotEmpty().hasSizeLessThanOrEqualTo(2);

        command.kill();

        assertThat(command.isAlive()).isFalse();
        for (ProcessHandle sleeper : sleepers) {
            assertThat(sleeper.onExit()).succeedsWithin(TIMEOUT);
        }
    }

    /** A peer whose probe finds it alive or gone as the test says, counting probes. */
    private static final class ScriptedLiveness implements Liveness {
        volatile boolean dead;
        volatile String evidence;
        int probes;

        @Override
        public Optional<String> gone() {
            return Optional.ofNullable(evidence);
        }

        @Override
        public synchronized Optional<String> probe(String trigger) {
            probes++;
            if (dead && evidence == null) {
                evidence = "first noticed: " + trigger + "\nQEMU run state (QMP query-status): paused";
            }
            return gone();
        }
    }

    @Test
    void sshsOwnExitCodeOnAPeerThatAnswersIsAnOrdinaryResult() {
        ScriptedLiveness liveness = new ScriptedLiveness();

        ExecResult result = BackgroundCommand.start(shell, liveness, "echo partial; exit 255").waitFor(TIMEOUT);

        assertThat(result.exitCode()).isEqualTo(255);
        assertThat(result.stdout()).isEqualTo("partial\n");
        assertThat(liveness.probes).as("exit 255 may mean ssh failed: probed").isEqualTo(1);
    }

    @Test
    void anOrdinaryFailureDoesNotProbe() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        liveness.dead = true;

        assertThat(BackgroundCommand.start(shell, liveness, "exit 3").waitFor(TIMEOUT).exitCode()).isEqualTo(3);
        assertThat(liveness.probes).isZero();
    }

    @Test
    void sshsOwnFailureOnAPeerThatDoesNotAnswerIsPeerGone() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        liveness.dead = true;

        assertThatThrownBy(() -> BackgroundCommand.start(shell, liveness,
                "echo 'Connection timed out during banner exchange' >&2; exit 255").waitFor(TIMEOUT))
                .isInstanceOfSatisfying(PeerGoneException.class, e -> assertThat(e.evidence())
                        .contains("exit 255").contains("Connection timed out during banner exchange").contains("paused"))
                .hasMessageStartingWith("the peer VM stopped responding");
    }

    @Test
    void aTimeoutOnAPeerThatDoesNotAnswerIsPeerGoneWithTheTimeoutAsCause() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        liveness.dead = true;
        try (BackgroundCommand command = BackgroundCommand.start(shell, liveness, "echo begun; exec sleep 60")) {
            assertThatThrownBy(() -> command.waitFor(Duration.ofMillis(200)))
                    .isInstanceOf(PeerGoneException.class)
                    .hasMessageContaining("still running after PT0.2S")
                    .cause().isInstanceOf(PeerCommandException.class).hasMessageContaining("begun");
        }
    }

    @Test
    void aTimeoutOnAPeerThatAnswersStaysATimeout() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        try (BackgroundCommand command = BackgroundCommand.start(shell, liveness, "exec sleep 60")) {
            assertThatThrownBy(() -> command.waitFor(Duration.ofMillis(200)))
                    .isExactlyInstanceOf(PeerCommandException.class).hasMessageContaining("still running");
            assertThat(liveness.probes).isEqualTo(1);
        }
    }

    @Test
    void aLineThatNeverComesFromAPeerThatDoesNotAnswerIsPeerGone() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        liveness.dead = true;
        try (BackgroundCommand command = BackgroundCommand.start(shell, liveness, "exec sleep 60")) {
            assertThatThrownBy(() -> command.awaitLine("listening", Duration.ofMillis(200)))
                    .isInstanceOf(PeerGoneException.class).hasMessageContaining("no line matching /listening/");
        }
    }

    @Test
    void onAPeerKnownGoneNothingIsLaunchedAndAKillOnlyEndsOurSide() {
        ScriptedLiveness liveness = new ScriptedLiveness();
        FakeShells.Ssh ssh = new FakeShells.Ssh();
        BackgroundCommand running = BackgroundCommand.start(ssh, liveness, "echo started; exec sleep 60");
        running.awaitLine("^started$", TIMEOUT);
        liveness.dead = true;
        liveness.probe("a test");
        long start = System.nanoTime();

        running.kill();

        assertThat(running.isAlive()).isFalse();
        assertThat(ssh.launches).as("no kill command sent to the peer").hasValue(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThatThrownBy(() -> BackgroundCommand.start(ssh, liveness, "rpc.nfsd 0"))
                .isInstanceOf(PeerGoneException.class).hasMessageContaining("'rpc.nfsd 0' not run");
        assertThat(ssh.launches).hasValue(1);
    }

    private static List<ProcessHandle> processesNamed(String token) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(token))
                .toList();
    }
}
