package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server and a client given different settings, as two commands on two hosts can be: whether
 * each compares with plain TCP, and which sizes they run. Each end must end, within a bound, with
 * an {@link IOException} that says what went wrong (the command prints it as one line), never
 * hang on the other or fail with an unchecked exception.
 */
class SplitEndsTest {

    private static final long WAIT_SECONDS = 60;

    private PerftestServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private static BenchSettings write(List<Integer> sizes, boolean compareTcp) {
        return new BenchSettings(BenchTest.WRITE, sizes, 20, 0, 0, 1, 16, NegotiationMode.REQUIRE, false, 2, 0,
                Transport.NIO, compareTcp);
    }

    /** {@link BenchRunner#serve} on a thread of its own, as {@code bench --server} runs it. */
    private CompletableFuture<RdmaOutcome> serve(BenchSettings settings) throws InterruptedException {
        server = new PerftestServer(settings, new InetSocketAddress("127.0.0.1", 0), null);
        CompletableFuture<RdmaOutcome> served = new CompletableFuture<>();
        PerftestServer end = server;
        Thread t = new Thread(() -> {
            try {
                served.complete(BenchRunner.serve(end, settings, null));
            } catch (Throwable e) {
                served.completeExceptionally(e);
            }
        }, "split-ends-server");
        t.setDaemon(true);
        t.start();
        return served;
    }

    private static Throwable failure(CompletableFuture<RdmaOutcome> served) throws Exception {
        try {
            served.get(WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("the server end succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aServerThatComparesServesAClientThatDoesNot() throws Exception {
        CompletableFuture<RdmaOutcome> served = serve(write(List.of(64), true));

        BenchRunner.ClientResult client = BenchRunner.client(write(List.of(64), false), server.localAddress(),
                null, BenchListener.NONE);

        assertThat(client.rdma().verified()).isTrue();
        // It used to wait for the client's DONE of a comparison the client never ran.
        assertThat(served).succeedsWithin(WAIT_SECONDS, TimeUnit.SECONDS)
                .satisfies(outcome -> assertThat(outcome.verified()).isTrue());
    }

    @Test
    void aClientThatComparesLeavesOutAServerThatDoesNot() throws Exception {
        CompletableFuture<RdmaOutcome> served = serve(write(List.of(64), false));

        BenchRunner.ClientResult client = BenchRunner.client(write(List.of(64), true), server.localAddress(),
                null, BenchListener.NONE);

        assertThat(client.tcpNote()).isEqualTo("no TCP comparison: the server runs with --no-tcp");
        assertThat(client.rows()).singleElement().satisfies(row -> assertThat(row.tcpBandwidth()).isNull());
        assertThat(client.rdma().verified()).isTrue();
        assertThat(served).succeedsWithin(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void aClientThatNeverEndsTheComparisonIsGivenUpOnceItsControlConnectionIsGone() throws Exception {
        CompletableFuture<RdmaOutcome> served = serve(write(List.of(64), true));
        server.doneGrace(1);

        // The RDMA session alone: it says it compares, closes the control connection and never says DONE.
        RdmaOutcome rdma = PerftestClient.run(write(List.of(64), true), server.localAddress(), null, null);

        assertThat(rdma.verified()).isTrue();
        assertThat(failure(served)).isInstanceOf(IOException.class).hasMessage("the client closed the control"
                + " connection and did not end the plain-TCP comparison (its DONE) within 1 s");
    }

    @Test
    void aClientWithFewerSizesIsToldAndTheServerSaysWhatCameInstead() throws Exception {
        CompletableFuture<RdmaOutcome> served = serve(write(List.of(2, 4), false));

        // After its one size the client goes on to its report's handshake, where the server awaits
        // the second size: the server's answer used to be a verdict decoded as a handshake.
        Throwable client = catchThrowable(() -> PerftestClient.run(write(List.of(2), false), server.localAddress(),
                null, null));

        assertThat(failure(served)).isInstanceOf(IOException.class).hasMessage("the peer sent a 56-octet control"
                + " message where the client's size report of 16 octets was due: do both ends run the same test"
                + " with the same -s/-a?");
        assertThat(client).isInstanceOf(IOException.class)
                .hasMessageStartingWith("control connection failed while waiting for a pingpong_dest handshake: ");
    }

    @Test
    void aClientWithMoreSizesIsNotAnsweredWithAHandshakeForItsVerdict() throws Exception {
        CompletableFuture<RdmaOutcome> served = serve(write(List.of(2), false));

        // The server, done with its one size, awaits the report's handshake and gets the second
        // size's report: it used to answer with its handshake, which the client read as an OK verdict.
        Throwable client = catchThrowable(() -> PerftestClient.run(write(List.of(2, 4), false),
                server.localAddress(), null, null));

        assertThat(failure(served)).isInstanceOf(IOException.class).hasMessage("the peer sent a 16-octet control"
                + " message where a pingpong_dest handshake of 56 octets was due: do both ends run the same test"
                + " with the same -s/-a?");
        assertThat(client).isInstanceOf(IOException.class).hasMessageStartingWith(
                "control connection failed while waiting for the server's verdict: ");
    }
}
