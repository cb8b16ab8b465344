package org.iwarp4j.conformance.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.conformance.probe.Verdict.FAIL;
import static org.iwarp4j.conformance.probe.Verdict.INCONCLUSIVE;
import static org.iwarp4j.conformance.probe.Verdict.INFO;
import static org.iwarp4j.conformance.probe.Verdict.PASS;
import static org.iwarp4j.conformance.probe.Verdict.WARN;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;
import org.junit.jupiter.api.Test;

/**
 * The probe against a scripted Responder that behaves as Linux siw 6.1 does where our own RNIC
 * cannot be made to: markers rejected with R=1, private data above 256 octets dropped, one RTR
 * named (Write if offered, else Read, else Write), Terminates without echoed headers and with the
 * layer and type nibbles swapped (a Read Request's invalid-STag error goes out as control octet
 * 0x10), and the first FPDU after the Reply left unanswered until another one arrives.
 */
class ProbeAgainstScriptedPeerTest {

    private static final int BOGUS_STAG = 0xDEADBE00;

    /** siw_proc_mpareq as far as the probe can see it. */
    private static MpaStartupFrame siwReply(MpaStartupFrame request) {
        if (request.privateDataLength() > 256) {
            return null;
        }
        EnhancedConnectionData offer = request.enhancedData();
        if (request.markers()) {
            return MpaStartupFrame.reply(false, request.crc(), true, request.revision(),
                    offer == null ? null : new EnhancedConnectionData(false, Set.of(), 0, 0), new byte[0]);
        }
        EnhancedConnectionData word = null;
        if (offer != null) {
            Set<RtrType> rtr = !offer.peerToPeer() ? Set.of() : offer.rtrTypes().contains(RtrType.WRITE)
                    ? EnumSet.of(RtrType.WRITE) : offer.rtrTypes().contains(RtrType.READ) ? EnumSet.of(RtrType.READ)
                    : EnumSet.of(RtrType.WRITE);
            word = new EnhancedConnectionData(offer.peerToPeer(), rtr, Math.min(offer.ord(), 128),
                    Math.min(offer.ird(), 128));
        }
        return MpaStartupFrame.reply(false, request.crc(), false, request.revision(), word, new byte[0]);
    }

    /** Zero-length Reads answered; a Read of an unknown STag or a Write with data Terminated as siw does. */
    private static byte[] siwAnswer(byte[] ulpdu) {
        ByteBuffer in = ByteBuffer.wrap(ulpdu);
        boolean tagged = (ulpdu[0] & 0x80) != 0;
        int opcode = ulpdu[1] & 0x0F;
        if (!tagged && opcode == 1) {
            int sinkStag = in.getInt(18);
            long sinkTo = in.getLong(22);
            int size = in.getInt(30);
            int sourceStag = in.getInt(34);
            if (size == 0) {
                return segment(new TaggedHeader(true, 0x42, sinkStag, sinkTo), new byte[0]);
            }
            if (sourceStag == BOGUS_STAG) {
                // RDMAP 0x0 / remote protection 0x1 with nibbles swapped; M, D, R in the low bits.
                return terminate(0x10, 0x07, 0, ulpdu, 18 + 28);
            }
        }
        if (tagged && opcode == 0 && ulpdu.length > 14) {
            // DDP 0x1 / tagged buffer 0x1 (the same either way); M and D in the low bits.
            return terminate(0x11, 0x03, ulpdu.length - 14, ulpdu, 14);
        }
        return null;
    }

    /**
     * siw's Terminate: the control field as its little-endian bit-fields lay it out, a segment
     * length that is not the segment's (siw: the Write's payload length, 0 for a Read Request),
     * then the headers.
     */
    private static byte[] terminate(int firstOctet, int flagOctet, int segmentLength, byte[] offending, int headers) {
        ByteBuffer payload = ByteBuffer.allocate(4 + 2 + headers);
        payload.put((byte) firstOctet).put((byte) 0).put((byte) flagOctet).put((byte) 0);
        payload.putShort((short) segmentLength).put(offending, 0, headers);
        return segment(new UntaggedHeader(true, 0x47, 0, 2, 1, 0), payload.array());
    }

    private static byte[] segment(org.iwarp4j.ddp.DdpHeader header, byte[] payload) {
        ByteBuf buf = Unpooled.buffer();
        header.encode(buf);
        buf.writeBytes(payload);
        return ByteBufUtil.getBytes(buf);
    }

    @Test
    void aSiwLikePeerIsReportedAsSiwIs() throws Exception {
        ProbeReport report;
        try (ScriptedResponder siw = new ScriptedResponder(ProbeAgainstScriptedPeerTest::siwReply,
                ProbeAgainstScriptedPeerTest::siwAnswer, true)) {
            report = Probe.builder(siw.address()).timeout(Duration.ofSeconds(3)).startupWait(Duration.ofSeconds(1))
                    .build().run();
        }

        assertThat(report.observation("mpa-revision-2").verdict()).isEqualTo(PASS);
        Observation crc = report.observation("crc-honoured");
        assertThat(crc.verdict()).as(report.toTable()).isEqualTo(PASS);
        assertThat(crc.facts()).as("the stalled first FPDU needed the wake-up Write")
                .containsEntry("wake_up_write", true);
        assertThat(report.observation("markers").verdict()).isEqualTo(FAIL);
        assertThat(report.observation("markers").facts()).containsEntry("reply_flags", "0x70");
        assertThat(report.observation("private-data-512").verdict()).isEqualTo(FAIL);
        // siw closes the legal 512 too, so its close of 513 says nothing about the limit.
        assertThat(report.observation("private-data-513").verdict()).isEqualTo(INCONCLUSIVE);
        assertThat(report.observation("rtr-send").verdict()).isEqualTo(INFO);
        assertThat(report.observation("rtr-send").facts()).containsEntry("reply_rtr", "write");
        assertThat(report.observation("rtr-read").verdict()).isEqualTo(PASS);

        Observation write = report.observation("terminate-write-invalid-stag");
        assertThat(write.verdict()).as(report.toTable()).isEqualTo(WARN);
        assertThat(write.facts()).containsEntry("control_word", "0x11000300").containsEntry("flag_d", false)
                .containsEntry("siw_flag_layout", true).containsEntry("terminate_length", 4 + 2 + 14)
                .containsEntry("segment_length", 16).containsEntry("ddp_header_echoed", true);
        assertThat(write.observed()).isEqualTo("Terminate 1/1/00 (DDP Tagged Buffer Error: Invalid STag), D=0"
                + " (D set in siw's layout), our DDP header copied back; the headers are not all copied back"
                + " (segment length 16, ours 30)");
        Observation writeLayout = report.observation("terminate-write-invalid-stag-layout");
        assertThat(writeLayout.verdict()).isEqualTo(FAIL);
        assertThat(writeLayout.requirement()).isEqualTo("RDMAP-R-040");
        assertThat(writeLayout.observed()).isEqualTo("M=0 D=0 R=0 announce 0 octets, 16 follow, reserved bits"
                + " 0x0300; looks like siw's little-endian bit-fields: M/D/R in the low bits of octet 2");

        Observation read = report.observation("terminate-read-invalid-stag");
        assertThat(read.verdict()).isEqualTo(FAIL);
        assertThat(read.facts()).containsEntry("control_word", "0x10000700").containsEntry("swapped_layer_type", true)
                .containsEntry("layer", 1).containsEntry("error_type", 0).containsEntry("read_request_header_echoed", true)
                .containsEntry("segment_length", 0);
        assertThat(read.observed()).isEqualTo("Terminate 1/0/00 (DDP Local Catastrophic), D=0 (D set in siw's layout),"
                + " our DDP header copied back, our Read Request header copied back; looks like siw's swapped"
                + " layer/type nibbles: read the other way it is 0/1/00 (RDMAP Remote Protection Error: Invalid STag)");
        assertThat(report.observation("terminate-read-invalid-stag-layout").verdict()).isEqualTo(FAIL);

        assertThat(report.observation("zero-length-write-bogus-stag").verdict()).isEqualTo(PASS);
        assertThat(report.observation("startup-timeout").verdict()).isEqualTo(WARN);
    }
}
