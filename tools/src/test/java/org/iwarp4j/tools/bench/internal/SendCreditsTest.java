package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Send test's flow control between {@link BandwidthClient} and {@link SendReceiver}: iWARP has
 * no RNR retry, so a Send that finds no posted receive is fatal. The client's rule ({@link
 * BandwidthClient#creditAllows}) and the server's credit interval ({@link
 * SendReceiver#creditInterval}) are run against each other here with Sends and credit Writes
 * delivered in order but after random delays, and every Send's arrival checks that a receive is
 * posted for it.
 */
class SendCreditsTest {

    @Test
    void aPerftestClientGetsPerftestsInterval() {
        assertThat(SendReceiver.creditInterval(512, false)).isEqualTo(170);
        assertThat(SendReceiver.creditInterval(40, false)).isEqualTo(13);
        assertThat(SendReceiver.creditInterval(2, false)).isEqualTo(1);
    }

    @Test
    void anIwarp4jClientGetsCreditsMoreOften() {
        assertThat(SendReceiver.creditInterval(512, true)).isEqualTo(128)
                .isLessThan(SendReceiver.creditInterval(512, false));
        assertThat(SendReceiver.creditInterval(40, true)).isEqualTo(10);
        assertThat(SendReceiver.creditInterval(6, true)).isEqualTo(1);
        assertThat(SendReceiver.creditInterval(2, true)).isEqualTo(1);
    }

    @Test
    void theClientStopsOneShortOfTheReceiveDepth() {
        assertThat(BandwidthClient.creditAllows(510, 0, 512)).isTrue();
        assertThat(BandwidthClient.creditAllows(511, 0, 512)).isFalse();
        assertThat(BandwidthClient.creditAllows(1000, 490, 512)).isTrue();
        assertThat(BandwidthClient.creditAllows(1000, 489, 512)).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"512, true", "512, false", "40, true", "40, false", "6, true", "2, false"})
    void everySendFindsAPostedReceiveAndTheClientNeverStalls(int rxDepth, boolean iwarp4j) {
        Simulation s = new Simulation(rxDepth, SendReceiver.creditInterval(rxDepth, iwarp4j), new Random(rxDepth));
        s.run(200_000);
        assertThat(s.minimumPosted).as("receives posted when a Send arrived").isPositive();
        assertThat(s.sent).as("Sends posted in 200000 steps (the credits kept coming)").isGreaterThan(5_000);
    }

    /**
     * One queue pair: the client posts whenever its rule allows (tx depth is not modelled, so the
     * credits are its only limit), the wire delivers Sends to the server and credit Writes to the
     * client in order. The server answers each arriving Send on its event loop as {@link
     * SendReceiver} does: it posts the repost and, every {@code interval} receives, a credit Write
     * of the count received; the loop's drain, a later step, posts the receives and puts the
     * credits on the wire behind them. Each step does one of these at random; a wire that is slower
     * than the client holds Sends back.
     */
    private static final class Simulation {
        private final int rxDepth;
        private final int interval;
        private final Random random;
        private final ArrayDeque<Long> sendsOnTheWire = new ArrayDeque<>();
        private final ArrayDeque<Integer> creditsOnTheWire = new ArrayDeque<>();
        private int posted;
        /** Reposts and credit Writes posted on the server's loop and not yet drained to the engine. */
        private int repostsQueued;
        private final ArrayDeque<Integer> creditsQueued = new ArrayDeque<>();
        private long received;
        private int seenCredit;
        long sent;
        int minimumPosted = Integer.MAX_VALUE;

        Simulation(int rxDepth, int interval, Random random) {
            this.rxDepth = rxDepth;
            this.interval = interval;
            this.random = random;
            this.posted = rxDepth;
        }

        void run(int steps) {
            for (int step = 0; step < steps; step++) {
                switch (random.nextInt(4)) {
                    case 0 -> clientPosts();
                    case 1 -> {
                        if (!sendsOnTheWire.isEmpty()) {
                            sendsOnTheWire.poll();
                            minimumPosted = Math.min(minimumPosted, posted);
                            posted--;
                            received++;
                            repostsQueued++;
                            if (received % interval == 0) {
                                creditsQueued.add((int) received);
                            }
                        }
                    }
                    case 2 -> serverLoopDrains();
                    default -> {
                        if (!creditsOnTheWire.isEmpty()) {
                            seenCredit = creditsOnTheWire.poll();
                        }
                    }
                }
            }
        }

        private void clientPosts() {
            int burst = 1 + random.nextInt(8);
            for (int k = 0; k < burst; k++) {
                if (!BandwidthClient.creditAllows(sent, seenCredit, rxDepth)) {
                    return;
                }
                sendsOnTheWire.add(sent++);
            }
        }

        /** The work queue's drain: every repost queued so far, then the credits queued behind them. */
        private void serverLoopDrains() {
            posted += repostsQueued;
            repostsQueued = 0;
            creditsOnTheWire.addAll(creditsQueued);
            creditsQueued.clear();
        }
    }
}
