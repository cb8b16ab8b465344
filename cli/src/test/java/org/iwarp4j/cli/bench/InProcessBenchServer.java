package org.iwarp4j.cli.bench;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.cli.WatchedWriter;

/**
 * {@code iwarp bench TEST --server ...} on a thread of this process, for tests that run the client
 * command against it. {@link #start} returns once the server has said that it listens (its
 * "waiting for a client on port" line, printed after the bind), or has ended: the client's first
 * connect then finds it. Started side by side, the client had only its connect retries (30 in
 * 3 s) to cover the server's start on a shared pool thread.
 */
final class InProcessBenchServer {

    private static final String LISTENING = "waiting for a client on port";

    private final WatchedWriter out = new WatchedWriter();
    private final WatchedWriter err = new WatchedWriter();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    private InProcessBenchServer() {
    }

    /** Runs {@code command} (words split at spaces); returns once it listens or has ended, within 60 s. */
    static InProcessBenchServer start(String command) throws Exception {
        InProcessBenchServer server = new InProcessBenchServer();
        Thread thread = new Thread(() -> {
            try {
                server.exit.complete(IwarpCommand.run(new PrintWriter(server.out, true),
                        new PrintWriter(server.err, true), command.split(" ")));
            } catch (Throwable e) {
                server.exit.completeExceptionally(e);
            }
        }, "bench-server");
        thread.setDaemon(true);
        thread.start();
        // stdout, or stderr with --json
        CompletableFuture.anyOf(server.out.line(LISTENING), server.err.line(LISTENING), server.exit)
                .get(60, TimeUnit.SECONDS);
        return server;
    }

    /** Its exit status, waiting up to 60 s for it. */
    int exitStatus() throws Exception {
        return exit.get(60, TimeUnit.SECONDS);
    }

    String out() {
        return out.toString();
    }

    String err() {
        return err.toString();
    }

    /** A port nobody listens on now, for a server the test starts. */
    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }
}
