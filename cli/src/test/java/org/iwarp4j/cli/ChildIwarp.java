package org.iwarp4j.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@code iwarp} command in a second {@code java} process (this test's class path), its output
 * (stdout and stderr merged) read line by line as it comes. Close it in {@code @AfterEach}: a
 * process still running is killed.
 */
public final class ChildIwarp implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final Thread reader;

    private ChildIwarp(Process process) {
        this.process = process;
        this.reader = new Thread(this::read, "child-iwarp-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code iwarp ARGS...}. */
    public static ChildIwarp start(String... args) throws IOException {
        return startWith(List.of(), args);
    }

    /** Starts {@code java JVM_OPTIONS... iwarp ARGS...} (e.g. {@code -Djava.io.tmpdir=DIR}). */
    public static ChildIwarp startWith(List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        if (Runtime.version().feature() >= 22) {
            // The jar's manifest grants Netty's native libraries native access (docs/jdk.md); on a
            // class path the JVM asks for the option instead, else it warns on stderr from Java 24.
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), IwarpCommand.class.getName()));
        command.addAll(List.of(args));
        return new ChildIwarp(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    public Process process() {
        return process;
    }

    /** Sends SIGINT, as Ctrl-C in a terminal does ({@code kill -INT PID}). */
    public void interrupt() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -INT " + process.pid() + " failed");
        }
    }

    /** The next output line matching {@code pattern}, skipping others; fails after {@code seconds}. */
    public Matcher awaitLine(Pattern pattern, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("no line matching " + pattern + " in " + seconds + " s; saw " + seen);
            }
            seen.add(line);
            Matcher m = pattern.matcher(line);
            if (m.find()) {
                return m;
            }
        }
    }

    /** Waits for the process to end, then returns every line it wrote. */
    public String awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after " + seconds + " s; saw " + seen);
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        lines.drainTo(seen);
        return String.join("\n", seen);
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("read failed: " + e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
