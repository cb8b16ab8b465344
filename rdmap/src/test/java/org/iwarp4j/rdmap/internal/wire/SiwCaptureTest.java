package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rdmap.internal.wire.RdmapOpcode.RDMA_READ_REQUEST;
import static org.iwarp4j.rdmap.internal.wire.RdmapOpcode.RDMA_READ_RESPONSE;
import static org.iwarp4j.rdmap.internal.wire.RdmapOpcode.RDMA_WRITE;
import static org.iwarp4j.rdmap.internal.wire.RdmapOpcode.SEND;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;
import org.iwarp4j.testkit.TcpSegment;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every RDMAP header Linux siw put on the wire in the captures of {@code testdata/captures} (rping
 * and perftest {@code -R -n 5 -s 64 -F -d siw0 -p 18515}, recorded by {@code scripts/record-captures.sh}),
 * parsed with this package and compared with what tshark 4.0 shows for the same files. The facts below were read once with
 * {@code tshark -r FILE --disable-heuristic rpcrdma_iwarp -Y iwarp_rdma -T fields -e tcp.stream
 * -e tcp.srcport -e iwarp_ddp.tagged_flag -e iwarp_ddp.qn -e iwarp_ddp.msn -e iwarp_rdma.opcode
 * -e iwarp_rdma.sinkstag -e iwarp_rdma.sinkto -e iwarp_rdma.rdmardsz -e iwarp_rdma.srcstag -e
 * iwarp_rdma.srcto -e iwarp_ddp.stag -e iwarp_ddp.tagged_offset -e iwarp_mpa.ulpdulength}; the
 * tests do not need tshark.
 *
 * <p>ULPDUs come out of the same MPA path as in {@code SiwRpingReplayTest}: the client's bytes
 * through our Responder, the server's through our Initiator, TCP segment by TCP segment.
 */
class SiwCaptureTest {

    /** One DDP segment as this package reads it. */
    private static final class Segment {
        final int length;
        final int ddpControl;
        final int rdmapControl;
        final RdmapControl.ControlCheck check;
        final int stag;
        final long to;
        final long invalidateStag;
        final long qn;
        final long msn;
        final long mo;
        final ReadRequestHeader readRequest;

        Segment(byte[] u) {
            length = u.length;
            ddpControl = Wire.uint8(u, 0);
            rdmapControl = Wire.uint8(u, RdmapConstants.RDMAP_CONTROL_OFFSET);
            boolean tagged = (ddpControl & RdmapConstants.DDP_CONTROL_TAGGED) != 0;
            stag = tagged ? Wire.int32(u, RdmapConstants.DDP_STAG_OFFSET) : 0;
            to = tagged ? Wire.int64(u, RdmapConstants.DDP_TO_OFFSET) : 0;
            invalidateStag = tagged ? -1 : Wire.uint32(u, RdmapConstants.INVALIDATE_STAG_OFFSET);
            qn = tagged ? -1 : Wire.uint32(u, RdmapConstants.DDP_QN_OFFSET);
            msn = tagged ? -1 : Wire.uint32(u, RdmapConstants.DDP_MSN_OFFSET);
            mo = tagged ? -1 : Wire.uint32(u, RdmapConstants.DDP_MO_OFFSET);
            check = RdmapControl.check(ddpControl, rdmapControl, qn);
            readRequest = check.opcode() == RDMA_READ_REQUEST
                    ? Wire.read(Wire.range(u, RdmapConstants.DDP_UNTAGGED_HEADER_LENGTH, u.length),
                            ReadRequestHeader::decode)
                    : null;
        }

        RdmapOpcode opcode() {
            return check.opcode();
        }
    }

    private static TcpConnection connection(String file, int stream) throws Exception {
        return PcapReader.read(TestData.capture(file)).connections().get(stream);
    }

    /** The DDP segments one side sent on TCP stream {@code stream} (tshark's {@code tcp.stream}). */
    private static List<Segment> segments(String file, int stream, boolean fromClient) throws Exception {
        TcpConnection c = connection(file, stream);
        // IRD/ORD 128 as siw offers in ib_read_bw's data connection (MPA private data 00800080); CRC as
        // the peer asks.
        MpaSettings settings = MpaSettings.builder().crc(NegotiationMode.ACCEPT).ird(128).ord(128).build();
        MpaStartupHandler handler = fromClient
                ? MpaStartupHandler.responder(settings, request -> CompletableFuture.completedFuture(MpaDecision.accept()))
                : MpaStartupHandler.initiator(settings);
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        channel.releaseOutbound();
        TcpDirection direction = fromClient ? c.clientToServer() : c.serverToClient();
        for (TcpSegment s : direction.segments()) {
            channel.writeInbound(Wire.buf(s.payload()));
        }
        channel.checkException();
        List<Segment> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            out.add(new Segment(Wire.bytes((ByteBuf) o)));
        }
        channel.releaseOutbound();
        assertThat(handler.startup()).isCompleted();
        assertThat(channel.finish()).isFalse();
        return out;
    }

    static Stream<Arguments> everyDirection() {
        List<Arguments> args = new ArrayList<>();
        for (String f : List.of("ib_write_bw-siw.pcap", "ib_read_bw-siw.pcap", "ib_send_bw-siw.pcap")) {
            for (int stream = 0; stream < 2; stream++) {
                args.add(Arguments.of(f, stream, true));
                args.add(Arguments.of(f, stream, false));
            }
        }
        for (String f : List.of("rping-siw.pcap", "rping-siw-crc.pcap")) {
            args.add(Arguments.of(f, 0, true));
            args.add(Arguments.of(f, 0, false));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} stream {1} from client {2}")
    @MethodSource("everyDirection")
    void everySiwHeaderPassesOurChecks(String file, int stream, boolean fromClient) throws Exception {
        Map<Long, Long> expectedMsn = new HashMap<>();
        for (Segment s : segments(file, stream, fromClient)) {
            // RDMAP-R-002: RV = 01b; RDMAP-R-004: Rsv = 0 on send; DDP DV = 1.
            assertThat(RdmapControl.version(s.rdmapControl)).isEqualTo(RdmapConstants.RDMAP_VERSION);
            assertThat(RdmapControl.reservedBits(s.rdmapControl)).isZero();
            assertThat(s.ddpControl & RdmapConstants.DDP_CONTROL_VERSION_MASK).isEqualTo(RdmapConstants.DDP_VERSION);
            // RDMAP-R-006, RDMAP-R-007: a defined opcode in the buffer model and on the queue of Fig. 4.
            assertThat(s.check.isValid()).as("%s", s.check).isTrue();
            // Every message in these captures fits one segment: L=1.
            assertThat(s.ddpControl & RdmapConstants.DDP_CONTROL_LAST).isEqualTo(RdmapConstants.DDP_CONTROL_LAST);
            if (!s.opcode().tagged()) {
                // RDMAP-R-005: RsvdULP[8:39] zero for Send and Read Request; RDMAP-R-033: MSN from 1 per QN.
                assertThat(s.invalidateStag).isZero();
                assertThat(s.mo).isZero();
                long expected = expectedMsn.getOrDefault(s.qn, (long) RdmapConstants.INITIAL_MSN);
                assertThat(s.msn).as("MSN on QN %d", s.qn).isEqualTo(expected);
                expectedMsn.put(s.qn, expected + 1);
            }
            if (s.opcode() == RDMA_READ_REQUEST) {
                // RDMAP-R-011: one 46-octet segment (18 + 28) on QN 1.
                assertThat(s.length).isEqualTo(RdmapConstants.READ_REQUEST_SEGMENT_LENGTH);
            }
        }
    }

    @ParameterizedTest(name = "{0} stream {1} from client {2}: {3}")
    @CsvSource({
        // tshark: iwarp_rdma.opcode per tcp.stream and tcp.srcport (client port first).
        "ib_write_bw-siw.pcap, 0, true, SEND=16",
        "ib_write_bw-siw.pcap, 0, false, SEND=16",
        "ib_write_bw-siw.pcap, 1, true, RDMA_WRITE=5",
        "ib_write_bw-siw.pcap, 1, false, ''",
        "ib_read_bw-siw.pcap, 0, true, SEND=16",
        "ib_read_bw-siw.pcap, 0, false, SEND=16",
        "ib_read_bw-siw.pcap, 1, true, RDMA_READ_REQUEST=5",
        "ib_read_bw-siw.pcap, 1, false, RDMA_READ_RESPONSE=5",
        "ib_send_bw-siw.pcap, 0, true, SEND=11",
        "ib_send_bw-siw.pcap, 0, false, SEND=11",
        "ib_send_bw-siw.pcap, 1, true, SEND=5",
        "ib_send_bw-siw.pcap, 1, false, RDMA_WRITE=2",
        "rping-siw.pcap, 0, true, RDMA_READ_RESPONSE=10 SEND=20",
        "rping-siw.pcap, 0, false, RDMA_WRITE=10 RDMA_READ_REQUEST=10 SEND=20",
        "rping-siw-crc.pcap, 0, true, RDMA_READ_RESPONSE=10 SEND=20",
        "rping-siw-crc.pcap, 0, false, RDMA_WRITE=10 RDMA_READ_REQUEST=10 SEND=20",
    })
    void opcodeCountsAreTsharks(String file, int stream, boolean fromClient, String counts) throws Exception {
        Map<RdmapOpcode, Integer> seen = new EnumMap<>(RdmapOpcode.class);
        for (Segment s : segments(file, stream, fromClient)) {
            seen.merge(s.opcode(), 1, Integer::sum);
        }
        String actual = seen.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        assertThat(actual).isEqualTo(counts);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // tshark iwarp_mpa.ulpdulength of the Sends, in order: perftest's rdma_cm exchange.
        "ib_write_bw-siw.pcap, 0, true, 34 22 22 20 74 74 74 74 74 74 26 26 26 26 26 74",
        "ib_read_bw-siw.pcap, 0, false, 34 22 22 20 74 74 74 74 74 74 26 26 26 26 26 74",
        "ib_send_bw-siw.pcap, 0, true, 34 22 22 20 74 74 74 74 74 74 74",
        "ib_send_bw-siw.pcap, 1, true, 82 82 82 82 82",
    })
    void sendLengthsAreTsharks(String file, int stream, boolean fromClient, String lengths) throws Exception {
        String actual = segments(file, stream, fromClient).stream().filter(s -> s.opcode() == SEND)
                .map(s -> Integer.toString(s.length)).collect(Collectors.joining(" "));
        assertThat(actual).isEqualTo(lengths);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // tshark iwarp_rdma.sinkstag, sinkto, rdmardsz, srcstag, srcto: the same request ten times.
        "rping-siw.pcap, ff944500, 00005592c8eff130, 7ec87f00, 000055ed28b99450",
        "rping-siw-crc.pcap, df617000, 0000563e304c2130, 2a2d1400, 0000564060df8450",
    })
    void rpingReadRequestsAndResponsesAreTsharks(String file, String sinkStag, String sinkTo, String sourceStag,
                                                  String sourceTo) throws Exception {
        ReadRequestHeader expected = new ReadRequestHeader(Integer.parseUnsignedInt(sinkStag, 16),
                Long.parseUnsignedLong(sinkTo, 16), 64, Integer.parseUnsignedInt(sourceStag, 16),
                Long.parseUnsignedLong(sourceTo, 16));
        List<Segment> requests = segments(file, 0, false).stream().filter(s -> s.opcode() == RDMA_READ_REQUEST)
                .collect(Collectors.toList());
        assertThat(requests).extracting(s -> s.readRequest).containsOnly(expected).hasSize(10);
        assertThat(requests).extracting(s -> s.qn).containsOnly((long) RdmapConstants.QN_READ_REQUEST);
        assertThat(requests).extracting(s -> s.msn).containsExactlyElementsOf(
                LongStream.rangeClosed(1, 10).boxed().collect(Collectors.toList()));
        // RDMAP-R-016: the Read Response carries the request's Data Sink STag and TO; 64 octets + 14.
        List<Segment> responses = segments(file, 0, true).stream().filter(s -> s.opcode() == RDMA_READ_RESPONSE)
                .collect(Collectors.toList());
        assertThat(responses).hasSize(10).allSatisfy(s -> {
            assertThat(s.stag).isEqualTo(expected.sinkStag());
            assertThat(s.to).isEqualTo(expected.sinkTaggedOffset());
            assertThat(s.length).isEqualTo(RdmapConstants.DDP_TAGGED_HEADER_LENGTH + 64);
        });
    }

    @Test
    void ibReadBwRequestsAdvanceBy64AndResponsesFollowThem() throws Exception {
        // tshark: sink STag 0x04868b00 at 0x0000556fffac0000 + 0x40 i, size 64,
        // source STag 0x2b843b00 at 0x000055957c434000 + 0x40 i, MSN 1..5; responses 78 octets.
        List<Segment> requests = segments("ib_read_bw-siw.pcap", 1, true);
        List<Segment> responses = segments("ib_read_bw-siw.pcap", 1, false);
        assertThat(requests).hasSize(5);
        assertThat(responses).hasSize(5);
        for (int i = 0; i < 5; i++) {
            ReadRequestHeader rr = requests.get(i).readRequest;
            assertThat(rr).isEqualTo(new ReadRequestHeader(0x04868b00, 0x0000556fffac0000L + 0x40L * i, 64,
                    0x2b843b00, 0x000055957c434000L + 0x40L * i));
            assertThat(requests.get(i).msn).isEqualTo(i + 1);
            assertThat(responses.get(i).opcode()).isEqualTo(RDMA_READ_RESPONSE);
            assertThat(responses.get(i).stag).isEqualTo(rr.sinkStag());
            assertThat(responses.get(i).to).isEqualTo(rr.sinkTaggedOffset());
            assertThat(responses.get(i).length).isEqualTo(78);
        }
    }

    @ParameterizedTest(name = "{0} stream {1}")
    @CsvSource({
        // tshark iwarp_ddp.stag, tagged_offset of the first Write, TO step, count, ULPDU length.
        "rping-siw.pcap, 0, false, 2a452a00, 000055ed28b96130, 0, 10, 78",
        "rping-siw-crc.pcap, 0, false, ab784700, 0000564060df5130, 0, 10, 78",
        "ib_write_bw-siw.pcap, 1, true, 6b3b4100, 00005556e0db2000, 64, 5, 78",
        "ib_send_bw-siw.pcap, 1, false, 856b0c00, 000056023f80ad44, 0, 2, 18",
    })
    void writesAreTsharks(String file, int stream, boolean fromClient, String stag, String firstTo, long step,
                          int count, int length) throws Exception {
        List<Segment> writes = segments(file, stream, fromClient).stream().filter(s -> s.opcode() == RDMA_WRITE)
                .collect(Collectors.toList());
        assertThat(writes).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(writes.get(i).stag).isEqualTo(Integer.parseUnsignedInt(stag, 16));
            assertThat(writes.get(i).to).isEqualTo(Long.parseUnsignedLong(firstTo, 16) + step * i);
            assertThat(writes.get(i).length).isEqualTo(length);
        }
    }

    @Test
    void siwControlOctetsAreTheRfc5040Values() throws Exception {
        // RFC 5040 section 4.1 (Figure 3: RV 01b, Rsv 00b, then the opcode of Figure 4; catalogue
        // docs/requirements/rfc5040-rdmap.md RDMAP-R-002, RDMAP-R-004, RDMAP-R-006): Write 0x40,
        // Read Request 0x41, Read Response 0x42, Send 0x43, as siw sends them.
        Map<RdmapOpcode, Integer> octets = new EnumMap<>(RdmapOpcode.class);
        for (boolean fromClient : new boolean[] {true, false}) {
            for (Segment s : segments("rping-siw.pcap", 0, fromClient)) {
                octets.put(s.opcode(), s.rdmapControl);
            }
        }
        assertThat(octets).containsOnly(Map.entry(RDMA_WRITE, 0x40), Map.entry(RDMA_READ_REQUEST, 0x41),
                Map.entry(RDMA_READ_RESPONSE, 0x42), Map.entry(SEND, 0x43));
        octets.forEach((op, octet) -> assertThat(RdmapControl.encode(op)).isEqualTo(octet));
    }
}
