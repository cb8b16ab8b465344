package org.iwarp4j.ddp;

/**
 * An untagged DDP message delivered to the ULP (RFC 5041 §5.4): the buffer it was placed into,
 * now given back, and what DDP must report with it.
 *
 * @param buffer the posted buffer that received the message
 * @param queueNumber the QN
 * @param msn the MSN
 * @param length the ULP message length: MO + payload length of the segment with L = 1
 *     (§5.4, DDP-R-037), at most {@code buffer.length()}
 * @param rsvdUlp RsvdULP[0:7] of the message's first received segment (§4.3 lets the sink report
 *     any segment's value, DDP-R-020; Linux siw also keeps the first segment's Invalidate STag)
 * @param rsvdUlpWord RsvdULP[8:39] of the same segment (RDMAP: the Invalidate STag)
 */
public record UntaggedMessage(ReceiveBuffer buffer, int queueNumber, int msn, long length, int rsvdUlp,
                              int rsvdUlpWord) {
}
