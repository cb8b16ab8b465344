package org.iwarp4j.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Pattern;
import org.iwarp4j.cli.ChildIwarp;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bench TEST --server} against clients that differ from it: one without the TCP comparison,
 * one with other sizes, and with {@code --run_infinitely} clients that fail before one that does
 * not. A server ends its client with one line and its document, and goes on to the next when told
 * to serve client after client.
 */
class BenchServerTest {

    private static final String SHORT = " -n 30 --warmup 0.05";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private ChildIwarp child;

    @AfterEach
    void stop() throws InterruptedException {
        if (child != null) {
            child.close();
        }
    }

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @Test
    void aServerThatComparesEndsAfterAClientWithNoTcp() throws Exception {
        String port = " -p " + InProcessBenchServer.freePort();
        InProcessBenchServer server = InProcessBenchServer.start("bench write --server -s 2048" + SHORT + port);

        assertThat(iwarp("bench write 127.0.0.1 -s 2048 --no-tcp" + SHORT + port)).as(err.toString()).isZero();

        // It used to wait for ever for the client's end of a TCP comparison that the client never ran.
        assertThat(server.exitStatus()).as(server.err()).isZero();
        assertThat(server.out()).contains("# data verified");
        assertThat(out.toString()).contains("# TCP comparison skipped (--no-tcp)");
    }

    @Test
    void aClientThatComparesLeavesOutAServerWithNoTcp() throws Exception {
        String port = " -p " + InProcessBenchServer.freePort();
        InProcessBenchServer server = InProcessBenchServer.start("bench write --server -s 2048 --no-tcp" + SHORT
                + port);

        assertThat(iwarp("bench write 127.0.0.1 -s 2048" + SHORT + port)).as(err.toString()).isZero();

        assertThat(out.toString()).contains("# no TCP comparison: the server runs with --no-tcp");
        assertThat(server.exitStatus()).as(server.err()).isZero();
    }

    /**
     * Sizes that differ put the ends out of step: a message of one kind arrives where another is
     * due. Each end says so in one line and its JSON document, exit status 1.
     */
    @ParameterizedTest(name = "server {0}, client {1}")
    @CsvSource(delimiter = '|', value = {
            // the client's handshake reaches a server that awaits a size report; it used to be read as one,
            // and the server's verdict then as the client's handshake (an unchecked exception at the client)
            "-a --max-size 4 | -s 2 | the peer sent a 56-octet control message where the client's size report of 16"
                    + " octets was due | control connection failed while waiting for a pingpong_dest handshake: ",
            // the client's size report reaches a server that awaits a handshake (an unchecked exception there)
            "-s 2 | -a --max-size 4 | the peer sent a 16-octet control message where a pingpong_dest handshake of 56"
                    + " octets was due | control connection failed while waiting for the server's verdict: "})
    void endsOutOfStepSayWhatCameInOneLineAndTheirDocument(String serverSizes, String clientSizes,
                                                           String serverError, String clientError) throws Exception {
        String options = " --no-tcp --json" + SHORT + " -p " + InProcessBenchServer.freePort();
        InProcessBenchServer server = InProcessBenchServer.start("bench write --server " + serverSizes + options);

        int status = iwarp("bench write 127.0.0.1 " + clientSizes + options);

        assertThat(status).as(err.toString()).isEqualTo(1);
        assertThat(err.toString().strip()).startsWith("iwarp bench write: " + clientError).doesNotContain("\n");
        JsonNode client = JSON.readTree(out.toString());
        assertThat(client.get("error").asText()).startsWith(clientError);
        assertThat(client.get("exit_status").asInt()).isEqualTo(1);

        assertThat(server.exitStatus()).as(server.err()).isEqualTo(1);
        // with --json the waiting line goes to stderr, before the one line of the failure
        String[] serverErr = server.err().strip().split("\\R");
        assertThat(serverErr).as(server.err()).hasSize(2);
        assertThat(serverErr[1]).startsWith("iwarp bench write: " + serverError);
        JsonNode served = JSON.readTree(server.out());
        assertThat(served.get("error").asText()).startsWith(serverError);
        assertThat(served.get("exit_status").asInt()).isEqualTo(1);
    }

    /**
     * {@code --server --run_infinitely} in a process of its own, ended as a person ends it (Ctrl-C):
     * a client whose data does not verify and one whose control messages come out of step are each
     * reported, and the client after them is served.
     */
    @Test
    void runInfinitelyServesTheNextClientAfterOnesThatFailed() throws Exception {
        int port = InProcessBenchServer.freePort();
        Pattern waiting = Pattern.compile("waiting for a client on port " + port + "$");
        child = ChildIwarp.start(("bench write --server --run_infinitely -s 2048 --no-tcp" + SHORT + " -p " + port)
                .split(" "));
        child.awaitLine(waiting, 60);
        String client = "bench write 127.0.0.1 --no-tcp" + SHORT + " -p " + port;

        assertThat(iwarp(client + " -s 1024")).as("the server verifies other sizes than its own").isEqualTo(1);
        child.awaitLine(Pattern.compile("^#   the client measured 1024-octet messages; this end was told 2048"), 60);
        child.awaitLine(waiting, 60);
        assertThat(iwarp(client + " -a --max-size 4")).as(err.toString()).isEqualTo(1);
        child.awaitLine(Pattern.compile("^iwarp bench write: the peer sent a 16-octet control message"), 60);
        child.awaitLine(waiting, 60);
        out.getBuffer().setLength(0);
        assertThat(iwarp(client + " -s 2048")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("# data verified");
        child.awaitLine(Pattern.compile("^# data verified"), 60);
        child.awaitLine(waiting, 60);

        child.interrupt();
        String output = child.awaitExit(60);
        assertThat(child.process().exitValue()).as(output).isEqualTo(130);
    }
}
