package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.cli.IwarpCommand;
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

    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private Process server;

    @AfterEach
    void kill() throws InterruptedException {
        if (server != null && server.isAlive()) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void sigtermStopsTheServerWithExitZero() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        server = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), IwarpCommand.class.getName(),
                "nfs", "serve", exported.toString(), "--tcp-port", "0", "--rdma-port", "0", "--bind", "127.0.0.1",
                "--threads", "2").redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                lines.add("read failed: " + e);
            }
        }, "nfs-serve-output");
        reader.start();
        StringBuilder seen = new StringBuilder();
        for (String line; !seen.toString().contains("# serving"); ) {
            line = lines.poll(60, TimeUnit.SECONDS);
            assertThat(line).as("the server's output so far:\n" + seen).isNotNull();
            seen.append(line).append('\n');
        }

        assertThat(server.toHandle().destroy()).isTrue(); // SIGTERM
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
        reader.join(10_000);
        lines.forEach(l -> seen.append(l).append('\n'));
        assertThat(server.exitValue()).as(seen.toString()).isZero();
        assertThat(seen.toString()).contains("# iwarp nfs serve: stopped");
    }
}
