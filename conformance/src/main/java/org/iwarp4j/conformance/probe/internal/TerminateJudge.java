package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/** Judges the Terminate an erroneous segment of a Terminate probe deserves: its content, then its layout. */
final class TerminateJudge {

    /**
     * What a Terminate probe sent and accepts: the {@code allowed} reasons pass, a reason
     * {@code warnIf} takes is a warning (the type the requirement asks for, another code), any
     * other fails; {@code readHeader} is the Read Request header to find echoed, or null.
     */
    record Case(String probe, String requirement, String expected, byte[] sent, Set<TerminateReason> allowed,
                Predicate<TerminateReason> warnIf, ReadRequestHeader readHeader) {
    }

    private final ObservationLog log;
    private final AnswerWait wait;
    private final TerminateLayout layout;
    private final Duration timeout;

    TerminateJudge(ObservationLog log, AnswerWait wait, TerminateLayout layout, Duration timeout) {
        this.log = log;
        this.wait = wait;
        this.layout = layout;
        this.timeout = timeout;
    }

    /**
     * Waits for the Terminate our erroneous segment deserves and judges it twice. First the
     * content (the case's requirement): is it a Terminate at all (RDMAP-R-036: an error on an
     * incoming Write or Read Request is reported with one; a close is not that), one whose
     * control field is whole (RDMAP-R-026: it carries layer, type and code), sent as RFC 5040
     * §5.4 has it (RDMAP-R-025: untagged, QN 2, MSN 1, MO 0; L=0 only a warning, the catalogue
     * calling one segment with L set practice, not RFC text; RDMAP-R-002: RDMAP version 1),
     * the reason, the echoed segment length and DDP header (RDMAP-R-026), for a Read Request the
     * echoed Read Request header. Then the layout ({@code probe}{@code -layout}, RDMAP-R-040): do M,
     * D and R announce exactly the octets that follow, with the reserved bits zero? Two Linux siw
     * habits are named where they explain what arrived: layer and type nibbles swapped, and M/D/R
     * in the low bits of the control field's third octet (the little-endian bit-field order of its
     * {@code struct iwarp_terminate}); in the latter case the headers are read as those bits
     * announce them, so that the content can still be judged.
     */
    void judge(ScriptedConnection c, Case tc) throws IOException {
        Map<String, Object> facts = new LinkedHashMap<>();
        Received received = wait.answer(c, facts);
        facts.put("answer", AnswerWait.describe(received));
        Wire.Message m = received.outcome() == Outcome.RECEIVED ? Wire.parse(received.ulpdu()) : null;
        if (m != null && m.opcode() == RdmapOpcode.TERMINATE && m.terminate() == null) {
            // A Terminate, but without the whole Terminate Control field: no layer, type or code (RDMAP-R-026).
            facts.put("terminate_length", m.payloadLength());
            log.add(tc.probe(), "RDMAP-R-026", Verdict.FAIL, "a malformed Terminate: " + m.problem(), tc.expected(),
                    facts, c.elapsedMillis());
            layout.cutShort(tc.probe() + "-layout", m.payloadLength());
            return;
        }
        if (m == null || m.terminate() == null) {
            log.add(tc.probe(), "RDMAP-R-036", Verdict.FAIL, "no Terminate: " + AnswerWait.describe(received),
                    tc.expected(), facts, c.elapsedMillis());
            layout.none(tc.probe() + "-layout");
            return;
        }
        TerminateMessage t = m.terminate();
        TerminateReason reason = t.reason();
        facts.put("layer", reason.layerCode());
        facts.put("error_type", reason.errorType());
        facts.put("error_code", reason.errorCode());
        facts.put("flag_m", t.segmentLengthValid());
        facts.put("flag_d", t.ddpHeaderIncluded());
        facts.put("flag_r", t.rdmaHeaderIncluded());
        facts.put("control_word", String.format("0x%08x", t.controlWord()));
        // Octets of the Terminate header, control field included: echoed headers, announced by D and R or not.
        facts.put("terminate_length", m.payloadLength());
        String framing = m.terminateFramingProblem();
        if (!framing.isEmpty()) {
            facts.put("terminate_framing", framing);
        }

        int lowBits = t.reservedBits() >>> 8 & 0x07;  // bit 0 M, bit 1 D, bit 2 R in siw's layout
        boolean siwFlags = !t.ddpHeaderIncluded() && !t.rdmaHeaderIncluded() && (lowBits & 0x02) != 0
                && (t.reservedBits() & ~0x0700) == 0;
        TerminateMessage content = t;
        if (siwFlags) {
            // The Terminate header starts after the DDP header: 18 octets if untagged as it should be, 14 if not.
            byte[] fixed = Arrays.copyOfRange(received.ulpdu(), m.headerLength(), received.ulpdu().length);
            fixed[2] = (byte) (((lowBits & 1) != 0 ? 0x80 : 0) | 0x40 | ((lowBits & 4) != 0 ? 0x20 : 0));
            content = TerminateMessage.decode(io.netty.buffer.Unpooled.wrappedBuffer(fixed));
        }
        facts.put("siw_flag_layout", siwFlags);

        byte[] echoedDdp = content.terminatedDdpHeader();
        boolean ddpEchoed = echoedDdp != null && Arrays.equals(echoedDdp, Wire.ddpHeaderOf(tc.sent()));
        boolean lengthEchoed = content.ddpSegmentLength() == tc.sent().length;
        facts.put("ddp_header_echoed", ddpEchoed);
        if (echoedDdp != null && !ddpEchoed) {
            facts.put("echoed_ddp_header", ByteBufUtil.hexDump(echoedDdp));
            facts.put("sent_ddp_header", ByteBufUtil.hexDump(Wire.ddpHeaderOf(tc.sent())));
        }
        facts.put("segment_length", content.ddpSegmentLength());
        boolean rdmaEchoed = tc.readHeader() == null || tc.readHeader().equals(content.terminatedRdmaHeader());
        if (tc.readHeader() != null) {
            facts.put("read_request_header_echoed", rdmaEchoed);
        }
        String observed = "Terminate " + AnswerWait.reasonText(reason) + (t.ddpHeaderIncluded() ? ", D=1" : ", D=0")
                + (t.rdmaHeaderIncluded() ? " R=1" : "") + (siwFlags ? " (D set in siw's layout)" : "")
                + (ddpEchoed ? ", our DDP header copied back" : "")
                + (tc.readHeader() != null && rdmaEchoed ? ", our Read Request header copied back" : "");
        String requirement = tc.requirement();
        Verdict verdict;
        if (!framing.isEmpty()) {
            requirement = framing.equals("RDMAP version " + m.rdmapVersion()) ? "RDMAP-R-002" : "RDMAP-R-025";
            verdict = Verdict.FAIL;
            observed += "; not sent as RFC 5040 §5.4 has it: " + framing;
        } else if (!tc.allowed().contains(reason)) {
            TerminateReason swapped = TerminateReason.of(reason.errorType(), reason.layerCode(), reason.errorCode());
            boolean siwSwap = tc.allowed().contains(swapped);
            facts.put("swapped_layer_type", siwSwap);
            boolean typeOnly = tc.warnIf().test(reason);
            verdict = typeOnly ? Verdict.WARN : Verdict.FAIL;
            observed += typeOnly ? "; the error type asked for, but a code that does not name an unknown STag"
                    : siwSwap ? "; looks like siw's swapped layer/type nibbles: read the other way it is "
                    + AnswerWait.reasonText(swapped) : "";
        } else if (!ddpEchoed || !lengthEchoed || !rdmaEchoed) {
            verdict = Verdict.WARN;
            observed += "; the headers are not all copied back" + (lengthEchoed ? "" : " (segment length "
                    + content.ddpSegmentLength() + ", ours " + tc.sent().length + ")");
        } else {
            verdict = Verdict.PASS;
        }
        if (!m.last()) {
            // RDMAP-R-025's one segment with L set is practice, not RFC 5040 text: a warning, not a failure.
            facts.put("terminate_last", false);
            observed += "; L=0 (one segment with L set is practice, not RFC 5040 text)";
            if (verdict == Verdict.PASS) {
                verdict = Verdict.WARN;
                requirement = "RDMAP-R-025";
            }
        }
        long closed = c.awaitClose(Duration.ofMillis(Math.min(1000, timeout.toMillis())));
        facts.put("closed_after_terminate", closed >= 0);
        log.add(tc.probe(), requirement, verdict, observed, tc.expected(), facts, c.elapsedMillis());
        layout.judge(tc.probe() + "-layout", t, m.payloadLength(), siwFlags);
    }
}
