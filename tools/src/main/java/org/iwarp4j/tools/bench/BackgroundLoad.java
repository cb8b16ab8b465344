package org.iwarp4j.tools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A defined background load for a benchmark ({@code iwarp bench --background-load N}): {@code N}
 * threads that do nothing but compute, in a separate JVM process, as issue 15's loaded runs ask for
 * ("one core kept busy by another process") without needing {@code stress-ng}. The load runs from
 * {@link #start} until {@link #close}; the child also ends by itself when this process goes away (it
 * watches its standard input, which this process holds open).
 *
 * <p>The child runs this class's {@link #main} with only this class's own jar (or class directory) on
 * its class path: it needs nothing but {@code java.base}.
 */
public final class BackgroundLoad implements AutoCloseable {

    /** The child's line once its threads run. */
    static final String READY = "background load running";
    private static final long START_TIMEOUT_SECONDS = 60;
    private static final long STOP_TIMEOUT_SECONDS = 10;

    private final Process process;
    private final int threads;
    private final Thread hook;

    private BackgroundLoad(Process process, int threads) {
        this.process = process;
        this.threads = threads;
        this.hook = new Thread(this::stop, "iwarp-background-load-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** What a run's JSON says of its load: the busy threads and the process they ran in. */
    public record Info(int threads, long pid) {
    }

    /**
     * Starts {@code threads} busy-looping threads in a new JVM and returns once they run.
     *
     * @throws IOException if the JVM cannot be started or does not say it runs within a minute
     */
    public static BackgroundLoad start(int threads) throws IOException, InterruptedException {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path classes;
        try {
            classes = Path.of(BackgroundLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot find the class path of " + BackgroundLoad.class.getName() + ": " + e, e);
        }
        // A small heap and the serial collector: the child should cost its busy threads and nothing else.
        Process process = new ProcessBuilder(List.of(java.toString(), "-Xmx32m", "-XX:+UseSerialGC",
                "-cp", classes.toString(), BackgroundLoad.class.getName(), Integer.toString(threads)))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line = r.readLine();
                ready.complete(line);
                while (r.readLine() != null) {
                    // drain: the child writes nothing more
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
        }, "iwarp-background-load-output");
        reader.setDaemon(true);
        reader.start();
        BackgroundLoad load = new BackgroundLoad(process, threads);
        try {
            String line = ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (!READY.equals(line)) {
                throw new IOException("the background-load process did not start (it said " + line + ")");
            }
            return load;
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            load.close();
            throw e instanceof IOException io ? io
                    : new IOException("the background-load process did not start: " + e, e);
        } catch (InterruptedException e) {
            load.close();
            throw e;
        }
    }

    public int threads() {
        return threads;
    }

    /** The child process's id. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Info info() {
        return new Info(threads, pid());
    }

    /** Stops the load and waits until its process has ended. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs (or ran) anyway
        }
    }

    private void stop() {
        try (OutputStream in = process.getOutputStream()) {
            in.flush(); // closing the child's standard input tells it to end
        } catch (IOException alreadyGone) {
            // ended already
        }
        try {
            if (!process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The child: {@code args[0]} busy threads until standard input ends. */
    public static void main(String[] args) throws IOException {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(BackgroundLoad::spin, "busy-" + i);
            t.setDaemon(true);
            t.start();
        }
        System.out.println(READY);
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the parent closes our input (or dies)
        }
        System.exit(0);
    }

    private static volatile long sink;

    private static void spin() {
        long x = Thread.currentThread().getId();
        while (true) {
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L; // an LCG step: work the JIT cannot drop
            }
            sink = x;
        }
    }
}
