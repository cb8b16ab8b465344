package org.iwarp4j.tools.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.iwarp4j.testkit.PcapReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CommandCapture}: a command's connections go into its own recording, those of another
 * command running at the same time in the same process do not; the file is closed and reported on
 * when the command ends; the command's exit status is kept.
 */
class CommandCaptureTest {

    @TempDir
    Path dir;

    private final StringWriter errText = new StringWriter();
    private final PrintWriter err = new PrintWriter(errText, true);

    @Test
    void outsideACommandNothingIsRecorded() {
        assertThat(records(PcapRecording.recorder(CommandCapture.current()))).isFalse();
        LoopbackEcho.Client handler = new LoopbackEcho.Client();
        assertThat(PcapRecording.recorded(CommandCapture.current(), handler)).isSameAs(handler);
    }

    @Test
    void theCommandsConnectionsGoIntoItsFileAndTheSummarySaysSo() throws Exception {
        Path file = dir.resolve("run.pcap");
        try (LoopbackEcho echo = new LoopbackEcho(ch -> { })) {
            int status = CommandCapture.run(file, err, () -> {
                try {
                    LoopbackEcho.Client c = echo.connect(PcapRecording.recorder(CommandCapture.current()));
                    c.exchange(PcapRecordingTest.message(0, 1234));
                    c.channel.close().sync();
                    return 42;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(status).as("the command's own status").isEqualTo(42);
        }
        assertThat(PcapReader.read(file).onlyConnection().clientToServer().byteCount()).isEqualTo(1234);
        assertThat(errText.toString()).isEqualTo("iwarp pcap: 1 connection recorded in " + file + " ("
                + Files.size(file) + " octets)" + System.lineSeparator());
        assertThat(records(PcapRecording.recorder(CommandCapture.current()))).as("after the command").isFalse();
    }

    @Test
    void threadsTheCommandStartsRecordIntoItOthersDoNot() throws Exception {
        CountDownLatch commandRunning = new CountDownLatch(1);
        CountDownLatch otherAsked = new CountDownLatch(1);
        AtomicBoolean otherRecords = new AtomicBoolean(true);
        Thread other = new Thread(() -> {
            try {
                commandRunning.await();
                otherRecords.set(records(PcapRecording.recorder(CommandCapture.current())));
                otherAsked.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        CompletableFuture<Boolean> startedByTheCommand = new CompletableFuture<>();
        CommandCapture.run(dir.resolve("threads.pcap"), err, () -> {
            commandRunning.countDown();
            Thread t = new Thread(() -> startedByTheCommand.complete(records(PcapRecording.recorder(CommandCapture.current()))));
            t.start();
            try {
                assertThat(otherAsked.await(30, TimeUnit.SECONDS)).isTrue();
                startedByTheCommand.get(30, TimeUnit.SECONDS); // asked while the command runs
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return 0;
        });
        other.join(30_000);
        assertThat(otherRecords).as("a thread of another command").isFalse();
        assertThat(startedByTheCommand.get(30, TimeUnit.SECONDS)).as("a thread the command started").isTrue();
    }

    @Test
    void anInnerRecordingReplacesTheOuterOneUntilItEnds() {
        Path outer = dir.resolve("outer.pcap");
        Path inner = dir.resolve("inner.pcap");
        CommandCapture.run(outer, err, () -> {
            CommandCapture.run(inner, err, () -> 0);
            assertThat(records(PcapRecording.recorder(CommandCapture.current()))).as("the outer recording again").isTrue();
            return 0;
        });
        assertThat(errText.toString()).contains("recorded in " + inner, "recorded in " + outer);
    }

    @Test
    void aFileThatCannotBeWrittenIsAnErrorAndTheCommandDoesNotRun() {
        AtomicBoolean ran = new AtomicBoolean();
        Path nowhere = dir.resolve("no-such-dir").resolve("x.pcap");
        int status = CommandCapture.run(nowhere, err, () -> {
            ran.set(true);
            return 0;
        });
        assertThat(status).isEqualTo(CommandCapture.EXIT_CANNOT_WRITE);
        assertThat(ran).isFalse();
        assertThat(errText.toString().strip()).isEqualTo("iwarp pcap: cannot write " + nowhere
                + ": its directory does not exist");
    }

    /** Whether {@code initializer} puts anything in front of a TCP channel's pipeline. */
    private static boolean records(Consumer<Channel> initializer) {
        NioSocketChannel channel = new NioSocketChannel();
        try {
            int before = channel.pipeline().names().size();
            initializer.accept(channel);
            return channel.pipeline().names().size() != before;
        } finally {
            channel.unsafe().closeForcibly();
        }
    }
}
