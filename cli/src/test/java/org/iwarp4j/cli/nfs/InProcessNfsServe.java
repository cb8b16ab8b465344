package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.cli.WatchedWriter;

/**
 * {@code iwarp nfs serve} on a thread of this process, on ephemeral loopback ports, for tests that
 * run the client commands against it: what it printed, the ports it printed, and its exit status
 * once interrupted (as Ctrl-C stops it).
 */
final class InProcessNfsServe {

    private static final Pattern PORTS = Pattern.compile(
            "over TCP on port (\\d+); NFSv3 over RPC-over-RDMA \\(iWARP, iwarp4j software RNIC\\) on port (\\d+)");

    private final WatchedWriter out = new WatchedWriter();
    private final StringWriter err = new StringWriter();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Thread thread;
    private int tcpPort;
    private int rdmaPort;

    private InProcessNfsServe(String[] args) {
        thread = new Thread(() -> exit.complete(IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true),
                args)), "nfs-serve");
    }

    /**
     * Serves {@code exported} on 127.0.0.1 with two worker threads and these further options;
     * returns once the server says it is serving (within 60 s).
     */
    static InProcessNfsServe start(Path exported, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of("nfs", "serve", exported.toString(), "--tcp-port", "0",
                "--rdma-port", "0", "--threads", "2"));
        if (!List.of(options).contains("--bind")) {
            args.addAll(List.of("--bind", "127.0.0.1"));
        }
        args.addAll(List.of(options));
        InProcessNfsServe server = new InProcessNfsServe(args.toArray(String[]::new));
        server.thread.start();
        server.out.line("# serving").get(60, TimeUnit.SECONDS);
        Matcher m = PORTS.matcher(server.output());
        assertThat(m.find()).as(server.output()).isTrue();
        server.tcpPort = Integer.parseInt(m.group(1));
        server.rdmaPort = Integer.parseInt(m.group(2));
        return server;
    }

    /** Everything the server printed so far. */
    String output() {
        return out.toString();
    }

    int tcpPort() {
        return tcpPort;
    }

    int rdmaPort() {
        return rdmaPort;
    }

    /** The client commands' options that reach this server. */
    String portOptions() {
        return " --port " + tcpPort + " --rdma-port " + rdmaPort;
    }

    /** Interrupts the server and checks that it exits with status 0 within 30 s. */
    void stop() throws Exception {
        thread.interrupt();
        assertThat(exit.get(30, TimeUnit.SECONDS)).as(err.toString()).isZero();
    }
}
