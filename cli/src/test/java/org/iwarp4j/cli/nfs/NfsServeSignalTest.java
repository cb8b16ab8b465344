package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.iwarp4j.cli.ChildIwarp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iwarp nfs serve} in a second {@code java} process stopped as a service manager stops it,
 * with SIGTERM: it closes both transports, says so and exits 0 (not the JVM's 143).
 */
class NfsServeSignalTest {

    @TempDir
    Path exported;

    private ChildIwarp server;

    @AfterEach
    void kill() throws InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sigtermStopsTheServerWithExitZero() throws Exception {
        server = ChildIwarp.start("nfs", "serve", exported.toString(), "--tcp-port", "0", "--rdma-port", "0",
                "--bind", "127.0.0.1", "--threads", "2");
        server.awaitLine(Pattern.compile("^# serving"), 60);

        assertThat(server.process().toHandle().destroy()).isTrue(); // SIGTERM
        String output = server.awaitExit(60);
        assertThat(server.process().exitValue()).as(output).isZero();
        assertThat(output).contains("# iwarp nfs serve: stopped");
    }
}
