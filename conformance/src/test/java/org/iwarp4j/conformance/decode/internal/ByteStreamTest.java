package org.iwarp4j.conformance.decode.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One direction's reassembly: only captured octets are stored, offsets stay the stream's own. */
class ByteStreamTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.1", 40000);
    private static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.2", 7174);
    private static final long ISN = 1000;
    private static final long MIB_256 = 256L << 20;

    private static TcpPacket syn() {
        return new TcpPacket(1, CLIENT, SERVER, ISN, TcpPacket.SYN, 1460, new byte[0]);
    }

    private static TcpPacket data(long frame, long offset, byte... payload) {
        return new TcpPacket(frame, CLIENT, SERVER, (ISN + 1 + offset) & 0xffffffffL, TcpPacket.ACK, -1, payload);
    }

    /** Data carried in the SYN (TCP Fast Open) is the stream's first octets, not one octet before them. */
    @Test
    void dataInTheSynStartsTheStream() {
        TcpPacket synWithData = new TcpPacket(1, CLIENT, SERVER, ISN, TcpPacket.SYN, 1460, new byte[] {1, 2, 3});
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, List.of(synWithData, data(2, 3, (byte) 4, (byte) 5)));
        assertThat(s.ignored()).isZero();
        assertThat(s.gaps()).isEmpty();
        assertThat(s.retransmitted()).isZero();
        assertThat(s.length()).isEqualTo(5);
        assertThat(s.data()).containsExactly(1, 2, 3, 4, 5);
        assertThat(s.frameAt(0)).isEqualTo(1);
        assertThat(s.frameAt(3)).isEqualTo(2);
    }

    /**
     * No SYN, and one stray segment 1 GiB below the stream: the stream starts at its first segment
     * in capture order, and the stray one is left out (it was offset 0, and the stream, 1 GiB
     * beyond it, was left out instead).
     */
    @Test
    void aStraySegmentFarBelowDoesNotStartTheStream() {
        long gib = 1L << 30;
        List<TcpPacket> packets = List.of(data(1, 0, (byte) 1, (byte) 2), data(2, -gib, (byte) 9),
                data(3, 2, (byte) 3), data(4, -2, (byte) 0, (byte) 0));
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, packets);
        assertThat(s.ignored()).isEqualTo(1);
        assertThat(s.data()).containsExactly(0, 0, 1, 2, 3);
        assertThat(s.frameAt(0)).isEqualTo(4);
        assertThat(s.gaps()).isEmpty();
    }

    /**
     * No SYN, and the first segment in capture order a stray one 1 GiB above the stream: the
     * stream is the cluster that holds the most octets, and the stray one is left out (the cluster
     * grown from the first segment was the stray one alone, and the whole stream was left out).
     */
    @Test
    void aStraySegmentFarAboveThatComesFirstDoesNotHideTheStream() {
        long gib = 1L << 30;
        List<TcpPacket> packets = List.of(data(1, gib, (byte) 9, (byte) 9, (byte) 9), data(2, 0, (byte) 1, (byte) 2),
                data(3, 2, (byte) 3), data(4, 3, (byte) 4, (byte) 5));
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, packets);
        assertThat(s.ignored()).isEqualTo(1);
        assertThat(s.data()).containsExactly(1, 2, 3, 4, 5);
        assertThat(s.length()).isEqualTo(5);
        assertThat(s.frameAt(0)).isEqualTo(2);
        assertThat(s.gaps()).isEmpty();
    }

    /** Two clusters of as many octets: the one of the first segment in capture order is the stream. */
    @Test
    void ofTwoClustersOfAsManyOctetsTheFirstCapturedIsTheStream() {
        long gib = 1L << 30;
        List<TcpPacket> packets = List.of(data(1, 0, (byte) 1, (byte) 2), data(2, gib, (byte) 7, (byte) 8));
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, packets);
        assertThat(s.ignored()).isEqualTo(1);
        assertThat(s.data()).containsExactly(1, 2);
        assertThat(s.frameAt(0)).isEqualTo(1);
    }

    /** One-octet segments 256 MiB apart: each jump is allowed, and the gaps between must cost nothing. */
    @Test
    void gapsCostNoMemoryAndKeepTheirTrueLength() {
        List<TcpPacket> packets = new ArrayList<>(List.of(syn()));
        for (int k = 0; k < 8; k++) {
            packets.add(data(2 + k, k * MIB_256, (byte) (0x30 + k)));
        }
        long before = AllocatedBytes.ofThisThread();
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, packets);
        assertThat(AllocatedBytes.ofThisThread() - before).isLessThan(4L << 20);
        assertThat(s.ignored()).isZero();
        assertThat(s.length()).isEqualTo(7 * MIB_256 + 1);
        assertThat(s.gaps()).hasSize(7).allSatisfy(g -> assertThat(g.length()).isEqualTo(MIB_256 - 1));
        assertThat(s.gaps().get(6).offset()).isEqualTo(6 * MIB_256 + 1);
        assertThat(s.data()).containsExactly(0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37);
        assertThat(s.data()[s.index(5 * MIB_256)]).isEqualTo((byte) 0x35);
        assertThat(s.frameAt(5 * MIB_256)).isEqualTo(7);
    }

    /** Sequence numbers wrap at 2^32: a stream past 4 GiB goes on rather than folding onto its start. */
    @Test
    void aStreamPastFourGibibytesKeepsGoing() {
        long step = 128L << 20;
        List<TcpPacket> packets = new ArrayList<>(List.of(syn()));
        for (int k = 0; k < 40; k++) { // 5 GiB: snaplen-cut segments leave the rest of each out
            packets.add(data(2 + k, k * step, (byte) k));
        }
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, packets);
        assertThat(s.retransmitted()).isZero();
        assertThat(s.outOfOrder()).isZero();
        assertThat(s.length()).isEqualTo(39 * step + 1);
        assertThat(s.gaps()).hasSize(39);
        assertThat(s.data()[s.index(35 * step)]).isEqualTo((byte) 35);
        assertThat(s.frameAt(35 * step)).isEqualTo(37);
    }

    @Test
    void indexAndGapInFollowTheStreamsOffsets() {
        // Octets 0-3, gap 4-9, 10-11, gap 12-19, 20-23.
        ByteStream s = ByteStream.assemble(CLIENT, SERVER, List.of(syn(), data(2, 0, (byte) 0, (byte) 1, (byte) 2,
                (byte) 3), data(3, 10, (byte) 10, (byte) 11), data(4, 20, (byte) 20, (byte) 21, (byte) 22, (byte) 23)));
        assertThat(s.length()).isEqualTo(24);
        assertThat(s.gaps()).containsExactly(new ByteStream.Gap(4, 6, 3), new ByteStream.Gap(12, 8, 4));
        for (long offset : new long[] {0, 3, 10, 11, 20, 23}) {
            assertThat(s.data()[s.index(offset)]).as("offset %d", offset).isEqualTo((byte) offset);
        }
        assertThat(s.index(7)).as("inside a gap: the captured octets before it").isEqualTo(4);
        assertThat(s.gapIn(0, 4)).isNull();
        assertThat(s.gapIn(3, 5)).isEqualTo(s.gaps().get(0));
        assertThat(s.gapIn(0, 24)).as("the first of two").isEqualTo(s.gaps().get(0));
        assertThat(s.gapIn(9, 10)).isEqualTo(s.gaps().get(0));
        assertThat(s.gapIn(10, 12)).isNull();
        assertThat(s.gapIn(11, 13)).isEqualTo(s.gaps().get(1));
        assertThat(s.gapIn(20, 24)).isNull();
        assertThat(s.gapsIn(0, 24)).isEqualTo(s.gaps());
        assertThat(s.gapsIn(5, 12)).containsExactly(s.gaps().get(0));
        assertThat(s.gapsIn(10, 12)).isEmpty();
        assertThat(s.gapsIn(9, 13)).isEqualTo(s.gaps());
    }
}
