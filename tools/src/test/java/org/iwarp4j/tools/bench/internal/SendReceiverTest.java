package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SendReceiver} answers receives on the event loop: once {@link SendReceiver#start} has
 * set the completion queues' listeners, no thread of the server takes part, and a client that
 * keeps rx depth − 1 un-credited Sends posted (as {@link BandwidthClient} does) still sends ten
 * receive queues' worth: every receive it consumed was reposted (else a Send finds none and the
 * connection ends in a Terminate) and credited (else the client stops), with perftest's interval
 * for a perftest client and iwarp4j's for an iwarp4j one, and the data placed is the pattern.
 */
class SendReceiverTest {

    private static final int SIZE = 1024;
    /** rx depth: the iteration count when it is below perftest's 512. */
    private static final int RX_DEPTH = 64;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final BenchSettings settings = new BenchSettings(BenchTest.SEND, List.of(SIZE), RX_DEPTH, 0, 0, 1, 16,
            NegotiationMode.REQUIRE, false, 2, 0, Transport.best(), false);

    @ParameterizedTest(name = "iwarp4j client: {0}")
    @ValueSource(booleans = {true, false})
    void theEventLoopRepostsAndCreditsWithNoServerThread(boolean iwarp4jClient) throws Exception {
        try (Ends ends = new Ends(settings)) {
            SendReceiver receiver = new SendReceiver(ends.server, List.of(ends.clientCreditWord()), iwarp4jClient);
            int every = SendReceiver.creditInterval(RX_DEPTH, iwarp4jClient);
            receiver.start();
            receiver.startSize(SIZE, !iwarp4jClient);
            ends.connect();
            long total = 10L * RX_DEPTH;

            ends.clientSends(total);

            long lastCredit = total / every * every;
            ends.awaitCredit(lastCredit);
            assertThat(ends.client.credit(0)).as("the last credit: every receive up to it reposted")
                    .isEqualTo((int) lastCredit);
            receiver.drainUntil(total);
            assertThat(receiver.receivedForSize()).isEqualTo(total);
            assertThat(receiver.wrongLength()).isZero();
            assertThat(ends.server.receiveCq().size()).as("receive completions left for a thread to poll").isZero();
            assertThat(ends.server.sendCq().size()).as("credit Write completions left for a thread to poll").isZero();
            assertThat(ends.server.verifyTargets(SIZE)).as("the data placed").isNull();
            receiver.stop();
        }
    }

    @Test
    void aPerftestClientsCreditsRestartWithEachSize() throws Exception {
        try (Ends ends = new Ends(settings)) {
            SendReceiver receiver = new SendReceiver(ends.server, List.of(ends.clientCreditWord()), false);
            int every = SendReceiver.creditInterval(RX_DEPTH, false);
            receiver.start();
            receiver.startSize(SIZE, true);
            ends.connect();
            ends.clientSends(3L * every);
            ends.awaitCredit(3L * every);

            receiver.startSize(SIZE, true);
            ends.client.resetCredits();
            ends.sent = 0;
            ends.clientSends(every);
            ends.awaitCredit(every);
            receiver.drainUntil(every);
            assertThat(receiver.receivedForSize()).as("this size's receives").isEqualTo(every);
            assertThat(ends.client.credit(0)).as("the count restarted").isEqualTo(every);
            receiver.stop();
        }
    }

    /** The Send test's two ends ({@link LoopbackDataEnds}), the client posting as {@link BandwidthClient} does. */
    private static final class Ends extends LoopbackDataEnds {
        final int rxDepth;
        final int txDepth;
        long sent;

        Ends(BenchSettings settings) throws Exception {
            super(settings);
            rxDepth = settings.rxDepth();
            txDepth = settings.depth();
        }

        /** What the client's handshake tells the server: where its credit word is. */
        PingPongDest clientCreditWord() {
            return new PingPongDest(0, 1, clientQp.number(), 0, client.creditRegion().stag(),
                    client.creditAddress(0), new byte[16], 0, 0);
        }

        /** Posts {@code count} more Sends as the credits and the tx depth allow; returns when all completed. */
        void clientSends(long count) throws Exception {
            QueuePair qp = client.queuePairs().get(0);
            long target = sent + count;
            int inFlight = 0;
            long lastProgress = System.nanoTime();
            while (sent < target || inFlight > 0) {
                while (sent < target && inFlight < txDepth
                        && BandwidthClient.creditAllows(sent, client.credit(0), rxDepth)) {
                    qp.postSend(SendWorkRequest.send(sent++, client.source(0, SIZE)));
                    inFlight++;
                    lastProgress = System.nanoTime();
                }
                // a completion, or (held back by credits) a short look at the credit word again
                WorkCompletion c = client.sendCq().poll(1, TimeUnit.MILLISECONDS);
                if (c != null) {
                    assertThat(c.isSuccess()).as("Send completion %s (server: %s, %d receive completions queued)",
                            c, server.queuePairs().get(0), server.receiveCq().size()).isTrue();
                    inFlight--;
                    lastProgress = System.nanoTime();
                }
                assertThat(System.nanoTime() - lastProgress).as("no progress for 30 s at Send %d (credit %d;"
                        + " server: %s, %d receive and %d send completions queued)", sent, client.credit(0),
                        server.queuePairs().get(0), server.receiveCq().size(), server.sendCq().size())
                        .isLessThan(TIMEOUT_NANOS);
            }
        }

        /** Waits up to 30 s for the server's credit Write to bring the word to {@code value}. */
        void awaitCredit(long value) {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while (client.credit(0) != value && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // a credit Write lands in memory and completes nothing here
            }
            assertThat(client.credit(0)).as("credit word").isEqualTo((int) value);
        }
    }
}
