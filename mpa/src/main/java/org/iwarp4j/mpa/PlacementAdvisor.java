package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;

/**
 * The ULP's half of direct placement: shown the first octets of an FPDU whose rest has not
 * arrived yet, it says where the rest of the ULPDU's payload belongs, so that {@link
 * MpaFrameDecoder} can have the socket read it straight there (see {@link
 * PlacementRecvByteBufAllocator}) instead of into a receive buffer that is copied afterwards.
 *
 * <p>An answer is a hint, not a placement: the ULPDU is still delivered as usual once the FPDU is
 * complete and its CRC checked (MPA-R-039, MPA-R-040), and the ULP still validates and places it
 * as usual; the decoder only saves the copy. A ULP must therefore only name memory that its own
 * later placement of this ULPDU would write to, and must decline (return {@code null}) whenever
 * it is not sure, e.g. after an error. Data placed and then not delivered (a CRC error found at
 * the FPDU's end, or a check that fails at delivery) is placed-but-not-delivered, which DDP
 * allows for a segment in error (RFC 5041 §7.1: nothing is delivered).
 */
@FunctionalInterface
public interface PlacementAdvisor {

    /** Octets of the ULPDU the advisor is shown when the ULPDU is longer: enough for any DDP header. */
    int HEAD_LENGTH = 18;

    /**
     * @param ulpduHead the ULPDU's first {@code min(HEAD_LENGTH, ulpduLength)} octets, readable;
     *     valid during this call only, not to be released
     * @param ulpduLength the ULPDU_Length of the FPDU
     * @return where the payload after the ULP's header goes, or {@code null} for the ordinary path
     */
    DirectPlacement advise(ByteBuf ulpduHead, int ulpduLength);
}
