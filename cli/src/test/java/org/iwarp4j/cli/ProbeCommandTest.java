package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** {@code iwarp probe} when nothing can be probed: one line in words and exit status 3, as the other commands. */
class ProbeCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String... args) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    private static int freePort() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    @Test
    void nobodyListeningIsOneLineAndExitThree() throws Exception {
        int port = freePort();
        assertThat(iwarp("probe", "127.0.0.1:" + port, "--timeout", "2", "--startup-wait", "1")).isEqualTo(3);
        assertThat(err.toString()).isEqualTo("iwarp probe: cannot connect to 127.0.0.1:" + port
                + ": Connection refused" + System.lineSeparator());
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aBadCommandLineIsOneLineAndWhereTheHelpIsAndExitTwo() {
        String nl = System.lineSeparator();
        assertThat(iwarp("probe", "127.0.0.1:70000")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp probe: port out of range: 70000" + nl + "see iwarp probe --help" + nl);
        err.getBuffer().setLength(0);
        assertThat(iwarp("probe", "127.0.0.1", "--timeout", "0")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp probe: --timeout 0.0: must be between 0.001 and 2147483.647 seconds"
                + nl + "see iwarp probe --help" + nl);
        err.getBuffer().setLength(0);
        assertThat(iwarp("probe", "127.0.0.1", "--startup-wait", "-1")).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp probe: --startup-wait -1.0: must be between 0.001 and 2147483.647"
                + " seconds" + nl);
        assertThat(out.toString()).isEmpty();
    }

    /**
     * Socket limits are whole milliseconds in an int: below 1 ms the limit became 0 (an exception
     * and a stack trace), beyond {@link Integer#MAX_VALUE} ms the casts wrapped and every probe
     * failed. Both are usage errors now, said in one line; nothing is probed.
     */
    @Test
    void aLimitBelowAMillisecondOrBeyondAnIntOfMillisecondsIsAUsageError() throws Exception {
        String nl = System.lineSeparator();
        int port = freePort();
        assertThat(iwarp("probe", "127.0.0.1:" + port, "--timeout", "0.0004")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp probe: --timeout 4.0E-4: must be between 0.001 and 2147483.647"
                + " seconds" + nl + "see iwarp probe --help" + nl);
        err.getBuffer().setLength(0);
        assertThat(iwarp("probe", "127.0.0.1:" + port, "--startup-wait", "3000000")).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp probe: --startup-wait 3000000.0: must be between");
        err.getBuffer().setLength(0);
        assertThat(iwarp("probe", "127.0.0.1:" + port, "--timeout", "NaN")).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp probe: --timeout NaN: must be between");
        assertThat(out.toString()).isEmpty();
    }

    /**
     * A listener that takes TCP connections and never sends a Reply (its backlog takes them; it
     * never accepts): nothing could be judged, which exit status 0 used to hide. The table, then
     * one line on stderr, and exit status 4.
     */
    @Test
    void aListenerThatNeverRepliesIsTheTableOneLineAndExitFour() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String target = "127.0.0.1:" + silent.getLocalPort();
            assertThat(iwarp("probe", target, "--timeout", "0.2", "--startup-wait", "0.1")).isEqualTo(4);
            // 11: without an enhanced Reply the RFC 6581 probes open no connection.
            assertThat(out.toString()).contains("mpa-revision-2").contains(" 0 fail, ");
            assertThat(err.toString()).isEqualTo("iwarp probe: no MPA Reply from " + target
                    + " on any of 11 connections: nothing was judged" + System.lineSeparator());
        }
    }

    @Test
    void anIpv6TargetIsWrittenInBrackets() throws Exception {
        int port = freePort();
        assertThat(iwarp("probe", "[::1]:" + port, "--timeout", "2", "--startup-wait", "1", "--json")).isEqualTo(3);
        assertThat(out.toString()).contains("\"target\":\"[0:0:0:0:0:0:0:1]:" + port + "\"");
    }
}
