package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.iwarp4j.tools.internal.RateLimitedLines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code rping -s -P}: one listener that serves every client, several at once, each with its own
 * queue pair; at most the bound at once (later Requests rejected); close ends every run.
 */
class RpingPersistentServerTest {

    private final Rpings.Output serverOutput = new Rpings.Output();
    private final ExecutorService clients = Executors.newCachedThreadPool();
    private RpingPersistentServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        clients.shutdownNow();
    }

    private void bind(int maxClients, int count) throws Exception {
        bind(maxClients, count, Rpings.STEP_TIMEOUT);
    }

    private void bind(int maxClients, int count, java.time.Duration waitLimit) throws Exception {
        bind(maxClients, count, waitLimit, System::nanoTime);
    }

    private void bind(int maxClients, int count, java.time.Duration waitLimit, LongSupplier clock) throws Exception {
        server = RpingPersistentServer.bind(RpingOptions.serverBuilder().address(InetAddress.getLoopbackAddress())
                .port(0).count(count).validate(true).build(), serverOutput.outWriter, serverOutput.errWriter,
                maxClients, waitLimit, clock);
    }

    private RawMpaPeer rawClient() throws Exception {
        RawMpaPeer peer = RawMpaPeer.connect(server.localAddress(),
                RpingOptions.clientBuilder(InetAddress.getLoopbackAddress()).build().mpaSettings(), 24);
        peer.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS);
        return peer;
    }

    private RpingResult ping(int count) throws InterruptedException {
        Rpings.Output out = new Rpings.Output();
        RpingResult r = new RpingClient(Rpings.client(server.localAddress().getPort()).count(count).validate(true)
                .build(), out.outWriter, out.errWriter).run();
        assertThat(r.failure()).as(out.err.toString()).isNull();
        return r;
    }

    @Test
    void clientsAtTheSameTimeAreEachServedAndVerified() throws Exception {
        bind(RpingPersistentServer.MAX_CLIENTS, 20);
        // three connections held at once: each has its own queue pair and run
        try (RawMpaPeer a = rawClient(); RawMpaPeer b = rawClient(); RawMpaPeer c = rawClient()) {
            assertThat(server.clientsServed()).isEqualTo(3);
            a.disconnect();
            b.disconnect();
            c.disconnect();
        }
        assertThat(server.awaitClientsEnded(3, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        List<Future<RpingResult>> runs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runs.add(clients.submit(() -> ping(20)));
        }
        for (Future<RpingResult> run : runs) {
            RpingResult r = run.get(Rpings.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(r.completed()).isEqualTo(20);
            assertThat(r.verified()).isEqualTo(20);
        }
        assertThat(server.awaitClientsEnded(6, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // the three raw clients left before their first ping, with -C 20 asked: failed runs
        assertThat(server.clientsSucceeded()).as(serverOutput.err.toString()).isEqualTo(3);
        assertThat(server.clientsFailed()).isEqualTo(3);
        assertThat(server.clientsRejected()).isZero();
    }

    /** The listener stays open between clients: one right after another is never refused (the old -P re-bound per client). */
    @Test
    void clientsOneAfterAnotherFindTheListenerOpen() throws Exception {
        bind(RpingPersistentServer.MAX_CLIENTS, 2);
        for (int i = 0; i < 5; i++) {
            assertThat(ping(2).completed()).isEqualTo(2);
        }
        assertThat(server.awaitClientsEnded(5, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(server.clientsSucceeded()).as(serverOutput.err.toString()).isEqualTo(5);
    }

    @Test
    void beyondTheBoundARequestIsRejectedAndTheNextAfterARunEndsIsServed() throws Exception {
        bind(1, 0);
        try (RawMpaPeer first = rawClient()) {
            Rpings.Output second = new Rpings.Output();
            RpingResult rejected = new RpingClient(Rpings.client(server.localAddress().getPort()).count(1).build(),
                    second.outWriter, second.errWriter).run();
            assertThat(rejected.negotiated()).isNull();
            assertThat(second.err.toString()).contains("the peer rejected the connection");
            assertThat(server.clientsRejected()).isEqualTo(1);
            first.disconnect();
        }
        assertThat(server.awaitClientsEnded(1, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        // Written off the event loop that rejected the request: certain only once the lines are written.
        assertThat(serverOutput.err.toString()).contains("1 clients are being served, the most at once");
        assertThat(ping(3).completed()).isEqualTo(3);
    }

    /**
     * A peer that opens connection after connection makes the server write a line for each (here
     * a rejection while the one place is taken): the burst is written, then how many were not.
     */
    @Test
    void theLinesAPeerCausesAreRateLimited() throws Exception {
        bind(1, 0, Rpings.STEP_TIMEOUT, () -> 0L); // time stands still: no interval ever ends
        int requests = RateLimitedLines.BURST + 2;
        try (RawMpaPeer first = rawClient()) {
            for (int i = 0; i < requests; i++) {
                try (RawMpaPeer rejected = RawMpaPeer.connect(server.localAddress(),
                        RpingOptions.clientBuilder(InetAddress.getLoopbackAddress()).build().mpaSettings(), 24)) {
                    assertThatThrownBy(() -> rejected.negotiated.get(RawMpaPeer.WAIT_SECONDS, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(org.iwarp4j.mpa.MpaRejectedException.class);
                }
            }
            assertThat(server.clientsRejected()).isEqualTo(requests);
            first.disconnect();
        }
        assertThat(server.awaitClientsEnded(1, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        server.close();

        List<String> lines = serverOutput.err.toString().lines().toList();
        assertThat(lines).hasSize(RateLimitedLines.BURST + 1);
        assertThat(lines.subList(0, RateLimitedLines.BURST)).allSatisfy(line -> assertThat(line)
                .startsWith("rejecting a connection request from /127.0.0.1:")
                .endsWith(": 1 clients are being served, the most at once"));
        // Two rejections and the first client's "server DISCONNECT EVENT...".
        assertThat(lines.get(RateLimitedLines.BURST)).isEqualTo("... suppressed 3 similar lines");
    }

    @Test
    void closeEndsTheRunOfAClientStillConnected() throws Exception {
        bind(RpingPersistentServer.MAX_CLIENTS, 0);
        try (RawMpaPeer idle = rawClient()) {
            assertThat(server.clientsServed()).isEqualTo(1);
            server.close();
            assertThat(server.awaitClientsEnded(1, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(server.clientsFailed()).isEqualTo(1);
            assertThat(server.clientsServed()).isZero();
            assertThat(serverOutput.err.toString()).contains("rping server failed (client /127.0.0.1:").contains("the server was closed");
        }
    }

    /** A client that connects and then says nothing gives its place back after the wait limit (here 1 s). */
    @Test
    void aSilentClientGivesItsPlaceBackAfterTheWaitLimit() throws Exception {
        bind(1, 0, java.time.Duration.ofSeconds(1));
        try (RawMpaPeer silent = rawClient()) {
            assertThat(server.awaitClientsEnded(1, Rpings.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(server.clientsFailed()).isEqualTo(1);
            assertThat(server.clientsServed()).isZero();
            assertThat(serverOutput.err.toString()).contains("rping server failed (client /127.0.0.1:")
                    .contains("no completion within 1000 ms");
        }
        assertThat(ping(2).completed()).as("the place is free again").isEqualTo(2);
    }
}
