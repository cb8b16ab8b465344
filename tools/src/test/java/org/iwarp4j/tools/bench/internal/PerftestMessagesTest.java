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
        assertThat(PerftestMessages.iwarp4jVersion(true))
                .isEqualTo(PerftestMessages.version(PerftestMessages.IWARP4J_VERSION));
    }

    @Test
    void aPeersVersionIsShownWithItsControlCharactersEscaped() {
        // 12 of perftest's 15 octets: a title change (OSC ... BEL) that would reach the terminal
        byte[] message = PerftestMessages.version("6.06\u001b]0;pwn\u0007");
        assertThat(PerftestMessages.versionOf(message)).isEqualTo("6.06\\x1b]0;pwn\\x07");
    }
}
