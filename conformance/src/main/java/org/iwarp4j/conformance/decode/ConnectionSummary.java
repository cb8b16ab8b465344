package org.iwarp4j.conformance.decode;

/**
 * One iWARP connection found in the capture.
 *
 * @param index tshark's {@code tcp.stream}: the TCP connection's position among all TCP
 *     connections of the capture, in order of their first frame
 * @param initiator {@code address:port} of the side that sent the MPA Request (the TCP client when
 *     the connection was found by {@code --port})
 * @param responder the other side
 * @param found {@code MPA Request} or {@code port} (mid-stream, no startup frames)
 * @param negotiated what the startup frames settled: revision, CRC, markers each way, IRD/ORD,
 *     peer-to-peer and RTR, RPC-over-RDMA inline thresholds
 * @param units decoded units (startup frames and ULPDUs)
 * @param missingOctets octets of the connection the capture lacks, both directions
 */
public record ConnectionSummary(int index, String initiator, String responder, long firstFrame, String found,
                                String negotiated, int units, long missingOctets) {
}
