package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The progress line: on a terminal it is redrawn in place often enough that its clock advances at
 * least once a second, and erased before a row; anywhere else it writes nothing at all.
 */
class ProgressLineTest {

    /** Records each flushed chunk and counts the flushes. */
    private static final class Recorder extends Writer {
        final StringBuilder pending = new StringBuilder();
        final List<String> flushed = new CopyOnWriteArrayList<>();
        final CountDownLatch redraws;

        Recorder(int expected) {
            redraws = new CountDownLatch(expected);
        }

        @Override
        public synchronized void write(char[] buf, int off, int len) {
            pending.append(buf, off, len);
        }

        @Override
        public synchronized void flush() {
            if (pending.length() > 0) {
                flushed.add(pending.toString());
                pending.setLength(0);
                redraws.countDown();
            }
        }

        @Override
        public void close() {
        }
    }

    @Test
    void onATerminalTheClockAdvancesAtLeastOnceASecond() throws Exception {
        // the ticker's period is the behaviour asked for; the elapsed wall time would only measure
        // how loaded the machine is
        assertThat(ProgressLine.REDRAW_PERIOD_MILLIS).isLessThanOrEqualTo(1000);
        Recorder terminal = new Recorder(4);
        try (ProgressLine progress = new ProgressLine(new PrintWriter(terminal), true)) {
            progress.set("RDMA Write 65536 octets");
            assertThat(terminal.redraws.await(10, TimeUnit.SECONDS)).as("redraws").isTrue();
            Pattern line = Pattern.compile("^\\r# +(\\d+\\.\\d) s: RDMA Write 65536 octets \\.\\.\\. *$");
            double previous = -1;
            for (String drawn : terminal.flushed.subList(0, 4)) {
                Matcher m = line.matcher(drawn);
                assertThat(m.matches()).as(drawn).isTrue();
                double seconds = Double.parseDouble(m.group(1));
                assertThat(seconds).isGreaterThanOrEqualTo(previous);
                previous = seconds;
            }
            assertThat(previous).as("the clock moved").isGreaterThan(0);
            progress.close(); // erases the line; no drawing after it
            String erase = terminal.flushed.get(terminal.flushed.size() - 1);
            assertThat(erase).startsWith("\r").endsWith("\r").matches("\\r +\\r");
        }
    }

    @Test
    void elsewhereNothingIsWritten() throws Exception {
        StringWriter pipe = new StringWriter();
        try (ProgressLine progress = new ProgressLine(new PrintWriter(pipe), false)) {
            progress.set("RDMA Write 65536 octets");
            progress.clear();
        }
        assertThat(pipe.toString()).isEmpty();
    }
}
