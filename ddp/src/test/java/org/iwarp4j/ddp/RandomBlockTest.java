package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/** {@link RandomBlock}: octets handed out in order, each once, with a refill exactly when a block runs out. */
class RandomBlockTest {

    /** A source whose octets are 0, 1, 2, ... across calls, counting its calls. */
    private static final class CountingSource extends SecureRandom {
        int calls;
        int counter;

        @Override
        public void nextBytes(byte[] bytes) {
            calls++;
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) counter++;
            }
        }
    }

    @Test
    void nothingIsFetchedBeforeTheFirstDraw() {
        CountingSource source = new CountingSource();
        new RandomBlock(source, 8);
        assertThat(source.calls).isZero();
    }

    @Test
    void oneFetchPerBlockAndTheOctetsContinueAcrossTheRefill() {
        CountingSource source = new CountingSource();
        RandomBlock block = new RandomBlock(source, 8);
        for (int i = 0; i < 8; i++) {
            assertThat(block.nextInt(256)).isEqualTo(i);
            assertThat(source.calls).isEqualTo(1);
        }
        assertThat(block.nextInt(256)).as("first octet of the second block").isEqualTo(8);
        assertThat(source.calls).isEqualTo(2);
    }

    @Test
    void aMultiOctetDrawStraddlingTheRefillTakesTheLastOctetsThenTheNewBlock() {
        CountingSource source = new CountingSource();
        RandomBlock block = new RandomBlock(source, 8);
        for (int i = 0; i < 6; i++) {
            block.nextInt(256); // octets 0..5
        }
        // 3 octets for a bound of 2^24: 6, 7 from the first block, 8 from the second.
        assertThat(block.nextInt(1 << 24)).isEqualTo(0x060708);
        assertThat(source.calls).isEqualTo(2);
        assertThat(block.nextInt(1 << 16)).isEqualTo(0x090A);
    }

    @Test
    void theDefaultBlockServes4096SingleOctetDrawsPerFetch() {
        CountingSource source = new CountingSource();
        RandomBlock block = new RandomBlock(source);
        for (int i = 0; i < RandomBlock.DEFAULT_SIZE; i++) {
            block.nextInt(256);
        }
        assertThat(source.calls).isEqualTo(1);
        block.nextInt(256);
        assertThat(source.calls).isEqualTo(2);
    }

    @Test
    void drawsInTheIncompleteLastRunAreRejectedSoNoResultIsFavoured() {
        CountingSource source = new CountingSource();
        RandomBlock block = new RandomBlock(source, 256);
        // Bound 255 with one octet: 0..254 are taken as they are, 255 is rejected and 0 (the next octet) used.
        for (int i = 0; i < 255; i++) {
            assertThat(block.nextInt(255)).isEqualTo(i);
        }
        assertThat(block.nextInt(255)).isEqualTo(0);
        assertThat(source.calls).isEqualTo(2);
        // Bound 100: octets 1..199 give 1..99, 0..99; 200..255 are rejected.
        CountingSource s2 = new CountingSource();
        s2.counter = 199;
        RandomBlock b2 = new RandomBlock(s2, 64);
        assertThat(b2.nextInt(100)).isEqualTo(99);
        assertThat(b2.nextInt(100)).as("200..255 skipped, then octet 0").isEqualTo(0);
    }

    @Test
    void resultsStayWithinTheBoundAndCoverItWithARealSource() {
        RandomBlock block = new RandomBlock(new SecureRandom(), 16);
        boolean[] seen = new boolean[7];
        for (int i = 0; i < 2000; i++) {
            int r = block.nextInt(7);
            assertThat(r).isBetween(0, 6);
            seen[r] = true;
        }
        assertThat(seen).containsOnly(true);
        for (int bound : new int[] {1, 2, 257, 65537, (1 << 24) + 1, Integer.MAX_VALUE}) {
            for (int i = 0; i < 200; i++) {
                assertThat(block.nextInt(bound)).isBetween(0, bound - 1);
            }
        }
    }

    @Test
    void argumentsAreValidated() {
        assertThatThrownBy(() -> new RandomBlock(new SecureRandom(), 3)).isInstanceOf(IllegalArgumentException.class);
        RandomBlock block = new RandomBlock(new SecureRandom(), 4);
        assertThatThrownBy(() -> block.nextInt(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
