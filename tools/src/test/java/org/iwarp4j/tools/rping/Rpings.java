package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Runs our rping's server and client in this process, capturing what each prints. */
public final class Rpings {

    public static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    public static final int WAIT_SECONDS = 60;

    private Rpings() {
    }

    /** One end's printed lines. */
    public static final class Output {
        public final StringWriter out = new StringWriter();
        public final StringWriter err = new StringWriter();
        public final PrintWriter outWriter = new PrintWriter(out, true);
        public final PrintWriter errWriter = new PrintWriter(err, true);

        public List<String> lines() {
            return Arrays.asList(out.toString().split("\\R"));
        }

        public List<String> linesStartingWith(String prefix) {
            return lines().stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
        }
    }

    /** A server on a free loopback port, serving on its own thread. */
    public static final class RunningServer implements AutoCloseable {
        public final Output output = new Output();
        public final RpingServer server;
        final CompletableFuture<RpingResult> result;
        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        public RunningServer(RpingOptions.Builder options) throws InterruptedException {
            server = RpingServer.bind(options.address(InetAddress.getLoopbackAddress()).port(0)
                    .timeout(STEP_TIMEOUT).build(), output.outWriter, output.errWriter);
            result = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.serve();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }, thread);
        }

        public int port() {
            return server.localAddress().getPort();
        }

        public RpingResult awaitResult() throws Exception {
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            server.close();
            thread.shutdownNow();
        }
    }

    public static RpingOptions.Builder client(int port) {
        return RpingOptions.clientBuilder(InetAddress.getLoopbackAddress()).port(port).timeout(STEP_TIMEOUT);
    }
}
