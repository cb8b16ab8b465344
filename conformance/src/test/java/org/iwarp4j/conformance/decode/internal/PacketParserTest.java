package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The TCP segment in a raw IPv4 frame (link type 228). */
class PacketParserTest {

    /**
     * IPv4 with the given IHL (in 32-bit words) over a 20-octet header, then TCP with one payload
     * octet. Its acknowledgment number, 0x50505050, reads as a TCP data offset of 5 words from
     * wherever an IHL of 4 would start the TCP header.
     */
    private static CaptureFile.Frame ipv4(int ihl) {
        ByteBuffer b = ByteBuffer.allocate(20 + 20 + 1);
        b.put((byte) (0x40 | ihl)).put((byte) 0).putShort((short) b.capacity()).putInt(0).put((byte) 64)
                .put((byte) 6).putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        b.putShort((short) 40000).putShort((short) 7174).putInt(1001).putInt(0x50505050).put((byte) 0x50).put((byte) 0x18)
                .putShort((short) 65535).putInt(0).put((byte) 'M');
        return new CaptureFile.Frame(1, PacketParser.LINKTYPE_IPV4, 0, b.flip());
    }

    @Test
    void aWholeHeaderGivesTheSegment() {
        Optional<TcpPacket> p = PacketParser.parse(ipv4(5));
        assertThat(p).hasValueSatisfying(t -> {
            assertThat(t.source().getPort()).isEqualTo(40000);
            assertThat(t.sequence()).isEqualTo(1001);
            assertThat(t.payload()).containsExactly('M');
        });
    }

    /** IHL 4 would put the TCP header at octet 16, inside the IPv4 header (its addresses). */
    @Test
    void anIhlBelowFiveIsNoSegment() {
        for (int ihl = 0; ihl < 5; ihl++) {
            assertThat(PacketParser.parse(ipv4(ihl))).as("IHL %d", ihl).isEmpty();
        }
    }
}
