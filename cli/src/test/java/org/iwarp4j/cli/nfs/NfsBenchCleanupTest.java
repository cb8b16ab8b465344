package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.iwarp4j.cli.ChildIwarp;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code iwarp nfs bench} leaves nothing behind: not on Ctrl-C (a second JVM, SIGINT while it writes
 * its files into a temporary export), not on a failure, and it does not start a run whose files the
 * file system cannot hold.
 */
class NfsBenchCleanupTest {

    @TempDir
    Path dir;

    private ChildIwarp bench;

    @AfterEach
    void stop() throws InterruptedException {
        if (bench != null) {
            bench.close();
        }
    }

    @Test
    void aFileLargerThanTheFreeSpaceIsRefusedBeforeAnythingIsWritten() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        long free = Files.getFileStore(dir).getUsableSpace();
        long tooLarge = (free >> 30) + 1; // GiB: one transport's file alone does not fit
        int status = IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), "nfs", "bench", "-s",
                tooLarge + "G", "--dir", dir.toString());
        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("iwarp nfs bench: --file-size ").contains(" free in " + dir)
                .contains("see iwarp nfs bench --help");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aServerWithoutRoomIsRefusedFromItsFsstat() throws Exception {
        try (org.iwarp4j.rdmap.Rnic rnic = org.iwarp4j.rdmap.Rnic.builder().eventLoopThreads(1).build();
             org.iwarp4j.nfs.NfsServer server = org.iwarp4j.nfs.NfsServer.builder(dir).exportName("/export")
                     .exportOptions(org.iwarp4j.nfs.ExportOptions.builder().readWrite().rootSquash(false).build())
                     .tcpAddress(new java.net.InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new java.net.InetSocketAddress("127.0.0.1", 0)).rnic(rnic).start()) {
            long tooLarge = (Files.getFileStore(dir).getUsableSpace() >> 30) + 1;
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int status = IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), "nfs", "bench",
                    "127.0.0.1:/export", "--port", String.valueOf(server.tcpPort()), "--rdma-port",
                    String.valueOf(server.rdmaPort()), "-s", tooLarge + "G");
            assertThat(status).as(err.toString()).isEqualTo(2);
            assertThat(err.toString()).startsWith("iwarp nfs bench: --file-size ")
                    .contains(" free on 127.0.0.1:/export (one file per transport), the server says ");
            assertThat(out.toString()).as("refused before the header").isEmpty();
            // the same from NFSv3's FSSTAT
            err.getBuffer().setLength(0);
            assertThat(IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), "nfs", "bench",
                    "127.0.0.1:/export", "--port", String.valueOf(server.tcpPort()), "--rdma-port",
                    String.valueOf(server.rdmaPort()), "-s", tooLarge + "G", "--vers", "3")).as(err.toString())
                    .isEqualTo(2);
            assertThat(err.toString()).contains(" free on 127.0.0.1:/export (one file per transport)");
            try (Stream<Path> left = Files.list(dir)) {
                assertThat(left).as("nothing created on the server").isEmpty();
            }
        }
    }

    @Test
    void ctrlCRemovesTheTemporaryExportAndExits130() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        // Many passes of a 32 MiB file: still writing when the signal comes.
        bench = ChildIwarp.startWith(List.of("-Djava.io.tmpdir=" + tmp), "nfs", "bench", "-s", "32M", "-n", "1000",
                "--warmup", "0", "--wsize", "64K", "--rsize", "64K");
        bench.awaitLine(Pattern.compile("^# iwarp nfs bench: "), 120);
        awaitFileIn(tmp, 60);
        bench.interrupt();
        String output = bench.awaitExit(60);
        assertThat(bench.process().exitValue()).as(output).isEqualTo(130);
        assertThat(output).contains("iwarp nfs bench: interrupted (Ctrl-C); the benchmark's files are removed");
        try (Stream<Path> left = Files.walk(tmp)) {
            assertThat(left.filter(p -> !p.equals(tmp))).as("left in java.io.tmpdir").isEmpty();
        }
    }

    /** Waits (polling the directory, at most {@code seconds}) until the benchmark has created its files. */
    private static void awaitFileIn(Path tmp, long seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.walk(tmp)) {
                if (files.anyMatch(p -> p.getFileName().toString().startsWith(".iwarp-nfs-bench-"))) {
                    return;
                }
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000);
        }
        throw new AssertionError("no benchmark file in " + tmp + " after " + seconds + " s");
    }
}
