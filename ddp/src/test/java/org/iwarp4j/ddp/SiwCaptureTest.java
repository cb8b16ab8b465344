package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.SiwCaptures.Decoded;
import org.junit.jupiter.api.Test;

/**
 * DDP headers of real Linux siw traffic ({@code testdata/captures}, perftest
 * {@code -R -n 5 -s 64 -F -d siw0 -p 18515}, CRC off, no markers, MPA rev 2). Every expected value below was read from tshark 4.0
 * ({@code --disable-heuristic rpcrdma_iwarp}, fields iwarp_ddp.*, iwarp_rdma.*, iwarp_mpa.ulpdulength)
 * and checked by hand against what this module decodes. Each capture has two TCP connections:
 * connection 0 carries perftest's parameter exchange as Sends both ways, connection 1 the benchmark.
 */
class SiwCaptureTest {

    /** ULPDU lengths of the 16 Sends of the exchange on connection 0 of the write and read captures. */
    private static final int[] EXCHANGE = {34, 22, 22, 20, 74, 74, 74, 74, 74, 74, 26, 26, 26, 26, 26, 74};

    private static void assertSendExchange(List<Decoded> sends, int[] lengths) {
        assertThat(sends).hasSize(lengths.length);
        for (int i = 0; i < lengths.length; i++) {
            // RsvdULP 43 00000000: RDMAP Send (RV 1, opcode 3), no Invalidate STag; QN 0; MSN from 1; one segment each.
            assertThat(sends.get(i).header()).isEqualTo(new UntaggedHeader(true, 0x43, 0, 0, i + 1, 0));
            assertThat(sends.get(i).segmentLength()).isEqualTo(lengths[i]);
            assertThat(sends.get(i).payload()).hasSize(lengths[i] - DdpConstants.UNTAGGED_HEADER_LENGTH);
        }
    }

    @Test
    void writeCapture() throws Exception {
        // ib_write_bw-siw.pcap. Connection 0 (47397 <-> 18515): 16 Sends each way, frames 8..64.
        assertSendExchange(SiwCaptures.segments("ib_write_bw-siw.pcap", 0, true), EXCHANGE);
        assertSendExchange(SiwCaptures.segments("ib_write_bw-siw.pcap", 0, false), EXCHANGE);
        // Connection 1 (56002 -> 18515), frames 38-47: five RDMA Writes (RsvdULP 0x40), tagged, L=1, STag
        // 0x6b3b4100, TO 0x5556e0db2000 + 64 i, ULPDU 78 = 14 + 64; siw's TOs are virtual addresses.
        List<Decoded> writes = SiwCaptures.segments("ib_write_bw-siw.pcap", 1, true);
        assertThat(writes).extracting(Decoded::header).containsExactly(
                write(0x40, 0x6b3b4100, 0x5556e0db2000L), write(0x40, 0x6b3b4100, 0x5556e0db2040L),
                write(0x40, 0x6b3b4100, 0x5556e0db2080L), write(0x40, 0x6b3b4100, 0x5556e0db20c0L),
                write(0x40, 0x6b3b4100, 0x5556e0db2100L));
        assertThat(writes).extracting(Decoded::segmentLength).containsOnly(78);
        assertThat(SiwCaptures.segments("ib_write_bw-siw.pcap", 1, false)).as("the server sends no FPDU").isEmpty();

        // Placed through our STag table at siw's TOs, the five payloads fill a 320-octet buffer in order.
        StagTable table = new StagTable(4);
        ByteBuf memory = ByteBufAllocator.DEFAULT.buffer(320).writeZero(320);
        try {
            int stag = table.register(1, 0x5556e0db2000L, 320, EnumSet.of(Access.REMOTE_WRITE), memory).stag();
            byte[] expected = new byte[0];
            for (Decoded w : writes) {
                ByteBuf payload = Bufs.buf(w.payload());
                table.place(stag, 1, 1, Access.REMOTE_WRITE, ((TaggedHeader) w.header()).to(), payload);
                payload.release();
                expected = Bufs.concat(expected, w.payload());
            }
            assertThat(Bufs.peek(memory)).isEqualTo(expected);
        } finally {
            memory.release();
        }
    }

    @Test
    void readCapture() throws Exception {
        // ib_read_bw-siw.pcap. Connection 0 (50482 <-> 18515): the same 16-Send exchange each way.
        assertSendExchange(SiwCaptures.segments("ib_read_bw-siw.pcap", 0, true), EXCHANGE);
        assertSendExchange(SiwCaptures.segments("ib_read_bw-siw.pcap", 0, false), EXCHANGE);
        // Connection 1, client 32934 (frames 38-55): five RDMA Read Requests (RsvdULP 0x41), untagged, QN 1,
        // MSN 1..5 (QN 1 has its own sequence from 1), MO 0, ULPDU 46 = 18 + 28-octet RDMAP header whose
        // Data Sink STag/TO tshark shows as 0x04868b00 / 0x556fffac0000 + 64 i, size 64.
        List<Decoded> requests = SiwCaptures.segments("ib_read_bw-siw.pcap", 1, true);
        // Server 18515 (frames 46-56): five Read Responses (RsvdULP 0x42), tagged, L=1, at exactly those STag/TOs.
        List<Decoded> responses = SiwCaptures.segments("ib_read_bw-siw.pcap", 1, false);
        assertThat(requests).hasSize(5);
        assertThat(responses).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(requests.get(i).header()).isEqualTo(new UntaggedHeader(true, 0x41, 0, 1, i + 1, 0));
            assertThat(requests.get(i).segmentLength()).isEqualTo(46);
            ByteBuffer rdmap = ByteBuffer.wrap(requests.get(i).payload());
            int sinkStag = rdmap.getInt();
            long sinkTo = rdmap.getLong();
            assertThat(sinkStag).isEqualTo(0x04868b00);
            assertThat(sinkTo).isEqualTo(0x556fffac0000L + 64L * i);
            assertThat(rdmap.getInt()).as("RDMA Read Message Size").isEqualTo(64);
            assertThat(responses.get(i).header()).isEqualTo(write(0x42, sinkStag, sinkTo));
            assertThat(responses.get(i).payload()).hasSize(64);
        }
    }

    @Test
    void sendCapture() throws Exception {
        // ib_send_bw-siw.pcap. Connection 0 (54748 <-> 18515), frames 8..53: 11 Sends each way, lengths
        // 34, 22, 22, 20, then 74s.
        assertSendExchange(SiwCaptures.segments("ib_send_bw-siw.pcap", 0, true),
                new int[] {34, 22, 22, 20, 74, 74, 74, 74, 74, 74, 74});
        assertSendExchange(SiwCaptures.segments("ib_send_bw-siw.pcap", 0, false),
                new int[] {34, 22, 22, 20, 74, 74, 74, 74, 74, 74, 74});
        // Connection 1, client 50426 (frames 39-45): five 64-octet Sends, QN 0, MSN 1..5, ULPDU 82 = 18 + 64.
        List<Decoded> sends = SiwCaptures.segments("ib_send_bw-siw.pcap", 1, true);
        int[] eighty = new int[5];
        Arrays.fill(eighty, 82);
        assertSendExchange(sends, eighty);
        // Server 18515 (frames 46, 48): two 4-octet RDMA Writes to STag 0x856b0c00, TO 0x56023f80ad44, payloads
        // 02000000 and 04000000 (ULPDU 18 = 14 + 4, MPA PAD 2).
        List<Decoded> writes = SiwCaptures.segments("ib_send_bw-siw.pcap", 1, false);
        assertThat(writes).extracting(Decoded::header).containsOnly(write(0x40, 0x856b0c00, 0x56023f80ad44L));
        assertThat(writes).extracting(Decoded::payload)
                .containsExactly(new byte[] {2, 0, 0, 0}, new byte[] {4, 0, 0, 0});

        // Our untagged queue takes siw's MSN sequence as it is: five posted buffers, five deliveries of 64 octets.
        List<UntaggedMessage> delivered = new ArrayList<>();
        UntaggedQueue q0 = new UntaggedQueue(0, 8, delivered::add);
        ByteBuf memory = ByteBufAllocator.DEFAULT.buffer(5 * 64).writeZero(5 * 64);
        try {
            for (int i = 0; i < 5; i++) {
                q0.post(ReceiveBuffer.of(i, memory.slice(64 * i, 64), 64));
            }
            byte[] expected = new byte[0];
            for (Decoded s : sends) {
                ByteBuf payload = Bufs.buf(s.payload());
                q0.place((UntaggedHeader) s.header(), payload);
                payload.release();
                expected = Bufs.concat(expected, s.payload());
            }
            assertThat(delivered).extracting(UntaggedMessage::length).containsOnly(64L).hasSize(5);
            assertThat(delivered).extracting(UntaggedMessage::msn).containsExactly(1, 2, 3, 4, 5);
            assertThat(Bufs.peek(memory)).isEqualTo(expected);
        } finally {
            memory.release();
        }
    }

    private static TaggedHeader write(int rsvdUlp, int stag, long to) {
        return new TaggedHeader(true, rsvdUlp, stag, to);
    }
}
