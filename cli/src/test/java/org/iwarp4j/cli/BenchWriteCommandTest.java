package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code iwarp bench write}: runs both transports, prints perftest-style columns; figures positive, never judged. */
class BenchWriteCommandTest {

    @Test
    void printsBothTransportsAndTheirRatio() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true),
                "bench", "write", "-s", "4096", "-D", "0.3", "--warmup", "0.1", "-t", "4");
        assertThat(status).as(err.toString()).isZero();
        String[] lines = out.toString().strip().split("\\R");
        assertThat(lines[0]).startsWith("# RDMA Write, loopback, CRC on, markers off");
        assertThat(lines[1].split("\\s+")).containsExactly("#bytes", "#iterations", "BW", "average[MB/s]",
                "MsgRate[Mpps]", "TCP", "BW[MB/s]", "ratio");
        String[] figures = lines[2].trim().split("\\s+");
        assertThat(figures[0]).isEqualTo("4096");
        assertThat(Long.parseLong(figures[1])).isPositive();
        assertThat(Double.parseDouble(figures[2])).isPositive();
        assertThat(Double.parseDouble(figures[4])).isPositive();
        assertThat(Double.parseDouble(figures[5])).isPositive();
    }

    @Test
    void unknownOptionIsAUsageError() {
        StringWriter err = new StringWriter();
        assertThat(IwarpCommand.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true),
                "bench", "write", "--bogus")).isEqualTo(2);
        assertThat(err.toString()).contains("--bogus");
    }
}
