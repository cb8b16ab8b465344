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
        assertThat(err.toString()).isEqualTo("iwarp probe: --timeout 0.0: must be more than 0 seconds" + nl
                + "see iwarp probe --help" + nl);
        err.getBuffer().setLength(0);
        assertThat(iwarp("probe", "127.0.0.1", "--startup-wait", "-1")).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp probe: --startup-wait -1.0: must be more than 0 seconds" + nl);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anIpv6TargetIsWrittenInBrackets() throws Exception {
        int port = freePort();
        assertThat(iwarp("probe", "[::1]:" + port, "--timeout", "2", "--startup-wait", "1", "--json")).isEqualTo(3);
        assertThat(out.toString()).contains("\"target\":\"[0:0:0:0:0:0:0:1]:" + port + "\"");
    }
}
