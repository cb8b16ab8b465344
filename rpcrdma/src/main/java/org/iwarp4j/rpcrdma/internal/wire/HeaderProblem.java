package org.iwarp4j.rpcrdma.internal.wire;

/**
 * Why a received transport header was not accepted, and what RFC 8166 §4.5 makes each end do
 * about it. A Responder answers errors in a Call's header with RDMA_ERROR; a Requester silently
 * discards a Reply whose header is in error. Some problems are discarded by both.
 */
public enum HeaderProblem {
    /**
     * Shorter than a minimal header (28 octets; 20 for an RDMA_ERROR with ERR_CHUNK, 16 for
     * RDMA_DONE): the XID cannot be trusted, so the message is discarded before any parsing (§4.5).
     */
    TOO_SHORT(Reaction.DISCARD, Reaction.DISCARD),
    /** rdma_vers is not 1 (§4.5.1): ERR_VERS with the supported range 1..1. */
    VERSION_NOT_SUPPORTED(Reaction.SEND_ERR_VERS, Reaction.DISCARD),
    /**
     * An RDMA_ERROR whose rdma_vers is not 1 and which is not an ERR_VERS: §7 fixes the place of
     * rdma_proc and the value of RDMA_ERROR for every version, so it is known to be an RDMA_ERROR,
     * and a received RDMA_ERROR is never answered (RPC-R-044): silently discarded. Not RDMA_DONE,
     * whose value §7 leaves to each version: a message of another version with rdma_proc 3 is
     * {@link #VERSION_NOT_SUPPORTED}.
     */
    RDMA_ERROR_OF_OTHER_VERSION(Reaction.DISCARD, Reaction.DISCARD),
    /**
     * An XDR error in a header of a known version (§4.5.2): an unknown rdma_proc, RDMA_NOMSG with no
     * chunk, an rdma_xid that differs from the RPC message's XID, a list that overruns the message or
     * is not terminated, a Position that is not a multiple of 4, a segment whose offset + length
     * wraps 2^64.
     */
    XDR_ERROR(Reaction.SEND_ERR_CHUNK, Reaction.DISCARD),
    /** Chunk lists more complex or chunks longer than this end accepts (§4.5.2, §8.1.4): ERR_CHUNK. */
    LIMIT_EXCEEDED(Reaction.SEND_ERR_CHUNK, Reaction.DISCARD),
    /** An RDMA_ERROR whose error code or body cannot be decoded: silently discarded (§4.5). */
    UNDECODABLE_ERROR(Reaction.DISCARD, Reaction.DISCARD);

    /** What a receiver does with a header it did not accept. */
    public enum Reaction {
        /** Drop the message without answering; the connection stays. */
        DISCARD,
        /** Answer with RDMA_ERROR / ERR_VERS (Responder only). */
        SEND_ERR_VERS,
        /** Answer with RDMA_ERROR / ERR_CHUNK (Responder only). */
        SEND_ERR_CHUNK
    }

    private final Reaction atResponder;
    private final Reaction atRequester;

    HeaderProblem(Reaction atResponder, Reaction atRequester) {
        this.atResponder = atResponder;
        this.atRequester = atRequester;
    }

    /** What a Responder does when a message it received (a Call) has this problem. */
    public Reaction atResponder() {
        return atResponder;
    }

    /** What a Requester does when a message it received (a Reply) has this problem: always discard. */
    public Reaction atRequester() {
        return atRequester;
    }

    /**
     * Whether the XID of a message with this problem names a Call: the message was long enough
     * for the XID to be trusted (§4.5) and of version 1, whose layout is known. A Requester ends
     * the Call it names (RPC-R-060: the message itself is still dropped, never answered).
     */
    public boolean namesACall() {
        return this != TOO_SHORT && this != VERSION_NOT_SUPPORTED && this != RDMA_ERROR_OF_OTHER_VERSION;
    }
}
