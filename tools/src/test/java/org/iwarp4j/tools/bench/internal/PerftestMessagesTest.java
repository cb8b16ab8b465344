package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The version strings perftest peers exchange, as this end reads and shows them. */
class PerftestMessagesTest {

    @Test
    void ourVersionReadsBackAsSentAndIsRecognised() {
        String version = PerftestMessages.versionOf(PerftestMessages.version(PerftestMessages.IWARP4J_VERSION));
        assertThat(version).isEqualTo("6.06 iwarp4j");
        assertThat(PerftestMessages.isIwarp4j(version)).isTrue();
    }

    @Test
    void theFlagForNoTcpComparisonIsBehindTheStringWherePerftestAndEarlierEndsSendZero() {
        byte[] noTcp = PerftestMessages.iwarp4jVersion(false);
        assertThat(noTcp).hasSize(PerftestMessages.VERSION_LENGTH);
        assertThat(PerftestMessages.versionOf(noTcp)).isEqualTo("6.06 iwarp4j"); // what perftest reads is unchanged
        assertThat(PerftestMessages.comparesTcp(noTcp)).isFalse();
        assertThat(PerftestMessages.comparesTcp(PerftestMessages.iwarp4jVersion(true))).isTrue();
        assertThat(PerftestMessages.versionOf(PerftestMessages.iwarp4jVersion(true))).isEqualTo("6.06 iwarp4j");
    }

    /**
     * Every iwarp4j end now says that it stamps its measured phases' last messages; an earlier one
     * (a 0 behind the string, as perftest's) does not, and is verified as before.
     */
    @Test
    void theStampFlagIsSetByThisEndAndAbsentFromEarlierOnes() {
        assertThat(PerftestMessages.stamps(PerftestMessages.iwarp4jVersion(true))).isTrue();
        assertThat(PerftestMessages.stamps(PerftestMessages.iwarp4jVersion(false))).isTrue();
        byte[] earlier = PerftestMessages.version(PerftestMessages.IWARP4J_VERSION);
        assertThat(PerftestMessages.stamps(earlier)).isFalse();
        assertThat(PerftestMessages.comparesTcp(earlier)).isTrue();
    }

    @Test
    void aPeersVersionIsShownWithItsControlCharactersEscaped() {
        // 12 of perftest's 15 octets: a title change (OSC ... BEL) that would reach the terminal
        byte[] message = PerftestMessages.version("6.06\u001b]0;pwn\u0007");
        assertThat(PerftestMessages.versionOf(message)).isEqualTo("6.06\\x1b]0;pwn\\x07");
    }
}
