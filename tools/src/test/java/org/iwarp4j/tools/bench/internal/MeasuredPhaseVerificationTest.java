package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;
import org.junit.jupiter.api.Test;

/**
 * The verification proves that the measured phase placed its data. Every Write of a size lands on
 * the same octets, and the warm-up had put the pattern there before the phase began: a check of the
 * pattern alone passed for a measured phase that placed nothing. Now the target is cleared between
 * warm-up and measurement (outside the phase's time), and the phase's last message on every queue
 * pair is stamped ({@link Pattern#fillStamped}), which the check looks for. A Write client and
 * server, and a Read client and server, over loopback, one data queue pair.
 */
class MeasuredPhaseVerificationTest {

    private static final int SIZE = 4096;
    private static final long ITERATIONS = 20;

    @Test
    void patternStampAndZerosAreToldApart() {
        io.netty.buffer.ByteBuf b = io.netty.buffer.Unpooled.buffer(3 * SIZE).writeZero(3 * SIZE);
        try {
            Pattern.fill(b, 0, SIZE);
            Pattern.fillStamped(b, SIZE, SIZE);
            assertThat(Pattern.firstStampedMismatch(b, 0, SIZE)).as("the plain pattern").isEqualTo(SIZE - 8);
            assertThat(Pattern.firstStampedMismatch(b, SIZE, SIZE)).as("the stamped message").isEqualTo(-1);
            assertThat(Pattern.firstStampedMismatch(b, 2 * SIZE, SIZE)).as("zeros").isZero();
            for (int size = 1; size <= 8; size++) {
                for (int j = 0; j < size; j++) {
                    assertThat(Pattern.stampedOctet(size, j)).as("a short message is all stamp, never 0")
                            .isNotEqualTo(Pattern.octet(j)).isNotZero();
                }
            }
        } finally {
            b.release();
        }
    }

    /** The client's engine for {@code ends}, warmed up and then prepared for a measured phase. */
    /**
     * A phase before the measured one that surely placed data (counted, not timed: a timed warm-up
     * of a few milliseconds may post nothing on a loaded machine), then the clearing.
     */
    private static BandwidthClient warmedUpAndCleared(Ends ends) throws Exception {
        BandwidthClient engine = ends.engine();
        engine.prepareMeasurement(SIZE); // nothing used the target yet: this only stamps the last message's source
        assertThat(engine.measure(SIZE, ITERATIONS, 0, true).iterations()).isEqualTo(ITERATIONS);
        assertThat(ends.server.verifyStamped(SIZE)).as("the earlier phase placed its data").isNull();
        engine.measurementDone(SIZE);
        engine.prepareMeasurement(SIZE);
        return engine;
    }

    @Test
    void aWritesTargetIsClearedBeforeTheMeasuredPhaseWhichEndsStamped() throws Exception {
        try (Ends ends = new Ends(BenchTest.WRITE)) {
            BandwidthClient engine = warmedUpAndCleared(ends);
            assertThat(Pattern.firstMismatch(ends.server.memory(), ends.server.targetOffset(0), SIZE))
                    .as("the earlier phase's pattern is gone").isZero();
            assertThat(ends.server.memory().slice(ends.server.targetOffset(0), SIZE).forEachByte(b -> b == 0))
                    .as("the target holds zeros only").isEqualTo(-1);

            assertThat(engine.measure(SIZE, ITERATIONS, 0, true).iterations()).isEqualTo(ITERATIONS);
            assertThat(ends.server.verifyStamped(SIZE)).as("the phase's last Write placed").isNull();
        }
    }

    @Test
    void aWritePhaseThatPlacedNothingFailsVerification() throws Exception {
        try (Ends ends = new Ends(BenchTest.WRITE)) {
            warmedUpAndCleared(ends);
            // no measured Write

            assertThat(ends.server.verifyStamped(SIZE)).contains("queue pair 0: octet 0 of 4096 differs");
        }
    }

    @Test
    void aReadsLastReadIsStampedAndAPhaseThatReadNothingFails() throws Exception {
        try (Ends ends = new Ends(BenchTest.READ)) {
            Pattern.fill(ends.server.memory(), ends.server.targetOffset(0), SIZE);
            ends.server.stampSources(SIZE);
            BandwidthClient engine = ends.engine();
            assertThat(engine.measure(SIZE, ITERATIONS, 0, false).iterations()).isEqualTo(ITERATIONS);
            assertThat(ends.client.verifyStamped(SIZE)).as("an earlier phase read the data").isNull();

            engine.prepareMeasurement(SIZE);
            assertThat(ends.client.verifyStamped(SIZE)).as("cleared: nothing of the phase yet")
                    .contains("octet 0 of 4096 differs");

            assertThat(engine.measure(SIZE, ITERATIONS, 0, false).iterations()).isEqualTo(ITERATIONS);
            assertThat(ends.client.verifyStamped(SIZE)).as("the phase's last Read placed").isNull();
        }
    }

    /** A client end and a server end over loopback ({@link LoopbackDataEnds}), connected, both stamping. */
    private static final class Ends extends LoopbackDataEnds {

        Ends(BenchTest test) throws Exception {
            super(new BenchSettings(test, List.of(SIZE), ITERATIONS, 0, 0, 1, 8, NegotiationMode.REQUIRE, false, 2, 0,
                    Transport.best(), false));
            connect();
        }

        /** The client's engine, against a server that stamps: what the server's handshake tells it. */
        BandwidthClient engine() {
            PingPongDest target = new PingPongDest(0, 128, serverQp.number(), 0, server.region().stag(),
                    server.targetAddress(0), new byte[16], 0, 0);
            return new BandwidthClient(client, List.of(target), true, true);
        }
    }
}
