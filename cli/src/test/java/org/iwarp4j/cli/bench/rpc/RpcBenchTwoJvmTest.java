package org.iwarp4j.cli.bench.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.cli.ChildIwarp;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "a sample RPC program runs between two JVMs over RPC-over-RDMA and over plain TCP":
 * {@code iwarp bench rpc --server} in a second {@code java} process (this test's class path), the
 * client here; the server counts exactly the calls the client made on each transport.
 */
class RpcBenchTwoJvmTest {

    private static final Pattern LISTENING = Pattern.compile(
            "RPC-over-RDMA port (\\d+) and ONC RPC/TCP port (\\d+)");
    private static final Pattern SERVED = Pattern.compile("# served (\\d+) calls over RPC-over-RDMA and (\\d+) over TCP");

    private ChildIwarp server;

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void serverInAnotherJvmServesEveryCallOverBothTransports() throws Exception {
        server = ChildIwarp.start("bench", "rpc", "--server", "-p", "0", "--tcp-port", "0");
        Matcher listening = server.awaitLine(LISTENING, 60);
        int rdmaPort = Integer.parseInt(listening.group(1));
        int tcpPort = Integer.parseInt(listening.group(2));
        assertThat(rdmaPort).isNotEqualTo(tcpPort);

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), ("bench rpc 127.0.0.1 -p "
                + rdmaPort + " --tcp-port " + tcpPort + " --max-size 4096 -P echo,sink,source -n 15 --warmup 0")
                .split(" "));
        assertThat(status).as(err.toString()).isZero();
        assertThat(out.toString()).contains("client of 127.0.0.1").contains("# data verified");
        List<String[]> rows = RpcBenchLoopbackTest.rows(out.toString());
        assertThat(rows).hasSize(6).allSatisfy(r -> {
            assertThat(r[2]).isEqualTo("15");
            assertThat(Double.parseDouble(r[3])).isPositive();
            assertThat(Double.parseDouble(r[5])).isPositive();
        });

        // The RDMA connection's end is reported by the server as it happens, with its call count.
        long perTransport = 1 + 6 * 15; // a NULL first, then 3 procedures x 2 sizes x 15 calls
        assertThat(server.awaitLine(Pattern.compile("RPC-over-RDMA connection from /127\\.0\\.0\\.1:\\d+ closed after (\\d+) "
                + "calls"), 30).group(1)).isEqualTo(String.valueOf(perTransport));
        // SIGTERM (ProcessHandle's, which leaves the output open to read): the server closes, reports
        // and, the signal being caught, exits 0 rather than 143
        assertThat(server.process().toHandle().destroy()).isTrue();
        Matcher served = server.awaitLine(SERVED, 30);
        assertThat(Long.parseLong(served.group(1))).isEqualTo(perTransport);
        assertThat(Long.parseLong(served.group(2))).isEqualTo(perTransport);
        String output = server.awaitExit(30);
        assertThat(server.process().exitValue()).as("exit status after SIGTERM\n" + output).isZero();
    }
}
