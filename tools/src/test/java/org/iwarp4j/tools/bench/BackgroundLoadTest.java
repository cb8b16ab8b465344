package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code --background-load}: the busy threads run in a separate JVM process that exists from {@link
 * BackgroundLoad#start} (which returns once the child says its threads run) until {@link
 * BackgroundLoad#close}, which waits until it has ended. Nothing here is timed.
 */
class BackgroundLoadTest {

    @Test
    void theLoadIsASeparateProcessFromStartToClose() throws Exception {
        long pid;
        try (BackgroundLoad load = BackgroundLoad.start(2)) {
            pid = load.pid();
            assertThat(pid).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(load.isAlive()).isTrue();
            assertThat(load.threads()).isEqualTo(2);
            assertThat(load.info()).isEqualTo(new BackgroundLoad.Info(2, pid));
            Optional<ProcessHandle> child = ProcessHandle.of(pid);
            assertThat(child).isPresent();
            assertThat(child.get().parent().map(ProcessHandle::pid)).contains(ProcessHandle.current().pid());
            assertThat(child.get().info().commandLine().orElse(BackgroundLoad.class.getName()))
                    .contains(BackgroundLoad.class.getName());
            load.close();
            assertThat(load.isAlive()).as("close() waits until the process has ended").isFalse();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void closingTwiceIsHarmless() throws Exception {
        BackgroundLoad load = BackgroundLoad.start(1);
        load.close();
        load.close();
        assertThat(load.isAlive()).isFalse();
    }

    @Test
    void atLeastOneThread() {
        assertThatThrownBy(() -> BackgroundLoad.start(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
