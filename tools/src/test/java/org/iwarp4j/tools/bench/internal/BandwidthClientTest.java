package org.iwarp4j.tools.bench.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The Read client's refill rule: post once half the tx depth is free, never leave it empty; and
 * how often the client signals a request.
 */
class BandwidthClientTest {

    @Test
    void readsArePostedOnceHalfTheDepthIsFree() {
        assertTrue(BandwidthClient.refill(0, 128), "an empty pipeline is filled");
        assertTrue(BandwidthClient.refill(64, 128), "64 of 128 free");
        assertFalse(BandwidthClient.refill(65, 128), "63 free: wait for more completions");
        assertFalse(BandwidthClient.refill(127, 128), "one completion is not a reason to post");
    }

    @Test
    void smallDepthsStillMakeProgress() {
        assertTrue(BandwidthClient.refill(0, 1));
        assertFalse(BandwidthClient.refill(1, 1));
        assertTrue(BandwidthClient.refill(1, 2));
        assertFalse(BandwidthClient.refill(2, 2));
        assertTrue(BandwidthClient.refill(2, 3), "half of 3 rounds down to 1");
        assertFalse(BandwidthClient.refill(3, 3));
    }

    @Test
    void oneRequestInHalfTheDepthIsSignalledAndAlwaysAtLeastEveryOne() {
        assertEquals(64, BandwidthClient.signalInterval(128), "perftest's default tx depth: two completions a window");
        assertEquals(1, BandwidthClient.signalInterval(3));
        assertEquals(1, BandwidthClient.signalInterval(1), "a depth of one signals every request");
    }
}
