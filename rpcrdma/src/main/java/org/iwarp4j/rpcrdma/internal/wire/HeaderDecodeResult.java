package org.iwarp4j.rpcrdma.internal.wire;

/**
 * The outcome of {@link RpcRdmaHeaderDecoder#decode}: a header, or the problem that stopped the
 * decoder with the fixed words it could read (so that an RDMA_ERROR can echo them, §4.5).
 */
public sealed interface HeaderDecodeResult permits HeaderDecodeResult.Decoded, HeaderDecodeResult.Rejected {

    /** A header that passed every check; the buffer's reader index is at the Payload stream. */
    record Decoded(RpcRdmaHeader header) implements HeaderDecodeResult {
    }

    /**
     * A header that was not accepted; the buffer's reader index is unchanged.
     *
     * @param xid rdma_xid as received (0 if the message was too short to hold it)
     * @param version rdma_vers as received (0 if too short)
     * @param credits rdma_credit as received (0 if too short)
     * @param detail what was wrong, for logs and exceptions
     */
    record Rejected(HeaderProblem problem, int xid, int version, int credits, String detail)
            implements HeaderDecodeResult {

        /**
         * The RDMA_ERROR a Responder sends for this problem, or {@code null} if it discards the
         * message. It carries the failing message's own xid and rdma_vers, so that the Requester
         * can match it to its Call even when the version is the problem (RPC-R-061).
         */
        public RpcRdmaHeader.RdmaError errorReply(int grantedCredits) {
            switch (problem.atResponder()) {
                case SEND_ERR_VERS:
                    return RpcRdmaHeader.RdmaError.errVers(xid, version, grantedCredits);
                case SEND_ERR_CHUNK:
                    return RpcRdmaHeader.RdmaError.errChunk(xid, version, grantedCredits);
                default:
                    return null;
            }
        }

        @Override
        public String toString() {
            return problem + String.format(" (xid %08x, vers %d): ", xid, Integer.toUnsignedLong(version)) + detail;
        }
    }
}
