package org.iwarp4j.interop.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The command plumbing every peer uses, run on this host (LocalShell): exit codes, separate
 * streams, waiting for a line, timeouts, and killing a command with everything it started.
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

    private static List<ProcessHandle> processesNamed(String token) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(token))
                .toList();
    }
}
