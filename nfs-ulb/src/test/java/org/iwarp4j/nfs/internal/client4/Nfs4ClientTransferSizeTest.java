package org.iwarp4j.nfs.internal.client4;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The NFSv4.1 client's READ and WRITE sizes: its limit, the server's maxread or maxwrite (RFC 8881
 * §5.8.2), what the session's channel holds. A maxread of 0 or 1 would have had the client READ
 * nothing, or an octet at a time; sizes under 1024 become 4096, as Linux's nfs_io_size takes them.
 */
class Nfs4ClientTransferSizeTest {

    private static final int MIB = 1 << 20;

    @Test
    void theServersSizeIsTakenWithinTheClientsLimitAndTheChannel() {
        assertThat(Nfs4Connection.size(MIB, 65536, 2 * MIB)).isEqualTo(65536);
        assertThat(Nfs4Connection.size(MIB, 4 * MIB, 2 * MIB)).isEqualTo(MIB);
        assertThat(Nfs4Connection.size(MIB, 4 * MIB, 128 * 1024)).as("what the channel holds").isEqualTo(126976);
    }

    @Test
    void aSizeUnder1024IsTakenAs4096() {
        assertThat(Nfs4Connection.size(MIB, 0, 2 * MIB)).isEqualTo(4096);
        assertThat(Nfs4Connection.size(MIB, 1, 2 * MIB)).isEqualTo(4096);
        assertThat(Nfs4Connection.size(MIB, 1023, 2 * MIB)).isEqualTo(4096);
        assertThat(Nfs4Connection.size(MIB, 1024, 2 * MIB)).isEqualTo(1024);
    }

    @Test
    void noSizeGivenLeavesTheClientsLimitWithinTheChannel() {
        assertThat(Nfs4Connection.size(MIB, -1, 2 * MIB)).as("maxread not returned").isEqualTo(MIB);
        assertThat(Nfs4Connection.size(MIB, Long.MIN_VALUE, 0)).as("2^63 and a channel of 0").isEqualTo(MIB);
        assertThat(Nfs4Connection.size(MIB, -1, 100)).as("a channel too small for anything").isEqualTo(4096);
    }
}
