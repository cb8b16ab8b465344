package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.tools.rping.SiwRpingCapture.OPCODE_READ_REQUEST;
import static org.iwarp4j.tools.rping.SiwRpingCapture.OPCODE_READ_RESPONSE;
import static org.iwarp4j.tools.rping.SiwRpingCapture.OPCODE_SEND;
import static org.iwarp4j.tools.rping.SiwRpingCapture.OPCODE_WRITE;
import static org.iwarp4j.tools.rping.SiwRpingCapture.opcode;
import static org.iwarp4j.tools.rping.SiwRpingCapture.payload;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.iwarp4j.tools.rping.internal.PingData;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What Linux rping over siw put on the wire ({@code testdata/captures/rping-siw*.pcap}), read as rping's
 * messages: the 16-octet {@code {addr, rkey, len}} Sends, the RDMA Read of the start buffer, the
 * RDMA Write back, the zero "go ahead" Sends, and the ping data. The same facts as tshark shows
 * with {@code tshark -r FILE --disable-heuristic rpcrdma_iwarp -V} (frames 8 to 14 are one ping).
 */
class RpingCaptureTest {

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void everyPingIsSendReadSendSendWriteSend(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        // rping -C 10: per ping three ULPDUs from the client, four from the server (RDMAP-R-011,
        // RDMAP-R-020, RDMAP-R-008).
        assertThat(capture.fromClient).hasSize(30);
        assertThat(capture.fromServer).hasSize(40);
        for (int ping = 0; ping < 10; ping++) {
            assertThat(opcode(capture.fromClient.get(3 * ping))).isEqualTo(OPCODE_SEND);
            assertThat(opcode(capture.fromClient.get(3 * ping + 1))).isEqualTo(OPCODE_READ_RESPONSE);
            assertThat(opcode(capture.fromClient.get(3 * ping + 2))).isEqualTo(OPCODE_SEND);
            assertThat(opcode(capture.fromServer.get(4 * ping))).isEqualTo(OPCODE_READ_REQUEST);
            assertThat(opcode(capture.fromServer.get(4 * ping + 1))).isEqualTo(OPCODE_SEND);
            assertThat(opcode(capture.fromServer.get(4 * ping + 2))).isEqualTo(OPCODE_WRITE);
            assertThat(opcode(capture.fromServer.get(4 * ping + 3))).isEqualTo(OPCODE_SEND);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void clientSendsAreSixteenOctetRdmaInfoThatTheServerUses(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        for (int ping = 0; ping < 10; ping++) {
            byte[] startAdvert = payload(capture.fromClient.get(3 * ping));
            byte[] sinkAdvert = payload(capture.fromClient.get(3 * ping + 2));
            assertThat(startAdvert).hasSize(RpingRdmaInfo.LENGTH);
            assertThat(sinkAdvert).hasSize(RpingRdmaInfo.LENGTH);
            RpingRdmaInfo start = RpingRdmaInfo.get(Unpooled.wrappedBuffer(startAdvert), 0);
            RpingRdmaInfo sink = RpingRdmaInfo.get(Unpooled.wrappedBuffer(sinkAdvert), 0);
            assertThat(start.size()).isEqualTo(64);
            assertThat(sink.size()).isEqualTo(64);
            // Network order: re-encoding gives the same 16 octets.
            ByteBuf encoded = Unpooled.buffer(16);
            start.encode(encoded);
            assertThat(encoded.array()).isEqualTo(startAdvert);

            // The server's Read Request reads len octets at (rkey, addr) of the start buffer (RDMAP-R-011) ...
            byte[] read = capture.fromServer.get(4 * ping);
            assertThat(SiwRpingCapture.int32(read, SiwRpingCapture.READ_SOURCE_STAG)).isEqualTo(start.rkey());
            assertThat(SiwRpingCapture.int64(read, SiwRpingCapture.READ_SOURCE_TO)).isEqualTo(start.buf());
            assertThat(SiwRpingCapture.int32(read, SiwRpingCapture.READ_SIZE)).isEqualTo(start.size());
            // ... and Writes into the sink buffer (RDMAP-R-008).
            byte[] write = capture.fromServer.get(4 * ping + 2);
            assertThat(SiwRpingCapture.int32(write, SiwRpingCapture.TAGGED_STAG)).isEqualTo(sink.rkey());
            assertThat(SiwRpingCapture.int64(write, SiwRpingCapture.TAGGED_TO)).isEqualTo(sink.buf());
        }
        // Frame 8 of rping-siw.pcap, the first Send's payload (tshark -x): buf 0x000055ed28b99450, rkey
        // 0x7ec87f00, len 64, which the server's first Read Request names as its source.
        if (file.equals("rping-siw.pcap")) {
            assertThat(payload(capture.fromClient.get(0))).isEqualTo(Hex.decode("000055ed28b99450 7ec87f00 00000040"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void serverGoAheadSendsAreSixteenZeroOctets(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        ByteBuf goAhead = Unpooled.buffer(16);
        RpingRdmaInfo.GO_AHEAD.encode(goAhead);
        for (int ping = 0; ping < 10; ping++) {
            assertThat(payload(capture.fromServer.get(4 * ping + 1))).isEqualTo(goAhead.array());
            assertThat(payload(capture.fromServer.get(4 * ping + 3))).isEqualTo(goAhead.array());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void pingDataReadAndWrittenBackIsRpingsPattern(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        for (int ping = 0; ping < 10; ping++) {
            byte[] expected = PingData.of(ping, 64);
            assertThat(payload(capture.fromClient.get(3 * ping + 1))).as("Read Response of ping %d", ping)
                    .isEqualTo(expected);
            // strlen + 1 = all 64 octets come back.
            assertThat(payload(capture.fromServer.get(4 * ping + 2))).as("Write of ping %d", ping)
                    .isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rping-siw.pcap", "rping-siw-crc.pcap"})
    void bothStartupFramesCarryIrdOrdOneOne(String file) throws Exception {
        SiwRpingCapture capture = SiwRpingCapture.load(file);
        // MPA2-R-001: Rev 2 and the RFC 6581 word first; rping's responder_resources/initiator_depth = 1/1.
        for (byte[] frame : List.of(capture.requestFrame, capture.replyFrame)) {
            assertThat(frame).hasSize(24);
            assertThat(frame[17]).isEqualTo((byte) 2);
            assertThat(java.util.Arrays.copyOfRange(frame, 20, 24)).isEqualTo(Hex.decode("00010001"));
            assertThat(frame[16] & 0x80).as("no markers").isZero();
        }
        assertThat(capture.crc()).isEqualTo(file.contains("crc"));
    }
}
