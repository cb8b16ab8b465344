package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.facts;

import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/** The -layout observation of a Terminate probe: RDMAP-R-040 (RFC 5040 §4.8). */
final class TerminateLayout {

    static final String EXPECTED = "M, D and R announce exactly the echoed fields that follow; reserved bits zero";

    private final ObservationLog log;

    TerminateLayout(ObservationLog log) {
        this.log = log;
    }

    /**
     * RDMAP-R-040 (RFC 5040 §4.8): the DDP Segment Length and DDP header are present when D is
     * set, the Read Request header when R is set — whatever the echoed DDP header is (our
     * decoder forgives R without it, as siw sends for Send with Invalidate; the rule does not) —
     * nothing follows that the bits do not announce, and the 13 reserved bits are zero.
     */
    void judge(String probe, TerminateMessage t, int terminateLength, boolean siwFlags) {
        int follows = terminateLength - 4;
        int announced = (t.ddpHeaderIncluded() ? 2 + (t.terminatedDdpHeader() == null ? 0
                : t.terminatedDdpHeader().length) : 0) + (t.terminatedRdmaHeader() != null ? 28 : 0);
        boolean ddpMissing = t.ddpHeaderIncluded() && t.terminatedDdpHeader() == null;
        boolean rdmaMissing = t.rdmaHeaderIncluded() && t.terminatedRdmaHeader() == null;
        boolean layoutOk = follows == announced && t.reservedBits() == 0 && !ddpMissing && !rdmaMissing;
        String flags = "M=" + bit(t.segmentLengthValid()) + " D=" + bit(t.ddpHeaderIncluded()) + " R="
                + bit(t.rdmaHeaderIncluded());
        String observed = layoutOk ? flags + " announce the " + follows + " octets that follow"
                : flags + " announce " + announced + " octets, " + follows + " follow"
                + (ddpMissing ? "; D=1 without the DDP Segment Length and DDP header" : "")
                + (rdmaMissing ? "; R=1 without the 28-octet Read Request header" : "")
                + (t.reservedBits() != 0 ? String.format(", reserved bits 0x%04x", t.reservedBits()) : "")
                + (siwFlags ? "; looks like siw's little-endian bit-fields: M/D/R in the low bits of octet 2" : "");
        log.add(probe, "RDMAP-R-040", layoutOk ? Verdict.PASS : Verdict.FAIL, observed, EXPECTED,
                facts("control_word", String.format("0x%08x", t.controlWord()), "terminate_length", terminateLength,
                        "siw_flag_layout", siwFlags), 0);
    }

    /** A Terminate shorter than its 4-octet control field: no M, D, R or reserved bits to read. */
    void cutShort(String probe, int terminateLength) {
        log.add(probe, "RDMAP-R-040", Verdict.FAIL, "the Terminate Control field is cut short: " + terminateLength
                + " of 4 octets", EXPECTED, facts("terminate_length", terminateLength), 0);
    }

    /** No Terminate arrived, so there is no layout to judge. */
    void none(String probe) {
        log.add(probe, "RDMAP-R-040", Verdict.INCONCLUSIVE, "no Terminate to judge", EXPECTED, facts(), 0);
    }

    private static String bit(boolean b) {
        return b ? "1" : "0";
    }
}
