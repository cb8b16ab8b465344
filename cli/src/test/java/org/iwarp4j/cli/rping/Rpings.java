package org.iwarp4j.cli.rping;

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
final class Rpings {

    static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    static final int WAIT_SECONDS = 60;

    private Rpings() {
    }

    /** One end's printed lines. */
    static final class Output {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final PrintWriter outWriter = new PrintWriter(out, true);
        final PrintWriter errWriter = new PrintWriter(err, true);

        List<String> lines() {
            return Arrays.asList(out.toString().split("\\R"));
        }

        List<String> linesStartingWith(String prefix) {
            return lines().stream().filter(l -> l.startsWith(prefix)).collect(Collectors.toList());
        }
    }

    /** A server on a free loopback port, serving on its own thread. */
    static final class RunningServer implements AutoCloseable {
        final Output output = new Output();
        final RpingServer server;
        final CompletableFuture<RpingResult> result;
        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        RunningServer(RpingOptions.Builder options) throws InterruptedException {
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

        int port() {
            return server.localAddress().getPort();
        }

        RpingResult awaitResult() throws Exception {
            return result.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            server.close();
            thread.shutdownNow();
        }
    }

    static RpingOptions.Builder client(int port) {
        return RpingOptions.clientBuilder(InetAddress.getLoopbackAddress()).port(port).timeout(STEP_TIMEOUT);
    }
}
