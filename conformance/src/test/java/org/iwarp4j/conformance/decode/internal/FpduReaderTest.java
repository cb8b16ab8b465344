package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Finding FPDUs again after a gap costs work in proportion to the stream, whatever its octets. */
class FpduReaderTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.1", 40000);
    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", 7174);

    private static ByteStream stream(byte[] octets) {
        return ByteStream.assemble(CLIENT, SERVER, List.of(new TcpPacket(1, CLIENT, SERVER, 1000, TcpPacket.SYN, 1460,
                new byte[0]), new TcpPacket(2, CLIENT, SERVER, 1001, TcpPacket.ACK, -1, octets)));
    }

    /** 0x41 everywhere passes the two-octet test at every offset; the rest of the header does not. */
    @Test
    void octetsThatFailTheHeaderAreNotReadWhole() {
        byte[] octets = new byte[130_000];
        Arrays.fill(octets, (byte) 0x41);
        FpduReader reader = new FpduReader(stream(octets), 0, false);
        assertThat(reader.resynchronise(0, true)).isEqualTo(-1);
        assertThat(reader.resyncOctets()).isZero();
    }

    /**
     * ULPDU_Length 0xff00 and a tagged RDMA Write header every four octets: every fourth offset
     * passes the header test, and the FPDU after it too, and only the CRC tells them apart.
     */
    @Test
    void headersThatPassEverywhereCostABoundedMultipleOfTheStream() {
        byte[] octets = new byte[256 * 1024];
        for (int i = 0; i < octets.length; i += 4) {
            octets[i] = (byte) 0xff;
            octets[i + 1] = 0x00;
            octets[i + 2] = (byte) 0x81; // DDP: tagged, DDP version 1
            octets[i + 3] = 0x40; // RDMAP: version 1, RDMA Write
        }
        ByteStream s = stream(octets);
        FpduReader reader = new FpduReader(s, 0, false);
        assertThat(reader.resynchronise(0, true)).isEqualTo(-1);
        // Without a bound, some 32,000 candidates of 64 KiB: 2 GiB read and CRC'd.
        assertThat(reader.resyncOctets()).isLessThan(17L * octets.length + (8L << 20));
        assertThat(new FpduReader(s, 0, false).resynchronise(0, false)).as("without CRC the first offset holds together")
                .isZero();
    }
}
