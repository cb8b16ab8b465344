package org.iwarp4j.nfs.binding;

/**
 * The reply resources a requester provides with one Call (RFC 8267 §3, RFC 8166 §3.4.6, §4.3.3):
 * a Write chunk for the DDP-eligible result, a Reply chunk when the Reply may still not fit inline.
 * A resource that is too small makes the responder answer ERR_CHUNK, so both are sized from the
 * largest possible reply.
 *
 * @param writeChunkOctets the Write chunk's length, 0 for none
 * @param replyChunkOctets the Reply chunk's length, 0 for none
 */
public record ReplyResources(long writeChunkOctets, long replyChunkOctets) {

    /**
     * Octets of an accepted RPC Reply header before the results (RFC 5531 §9): xid, msg_type,
     * reply_stat, verifier flavor and length, accept_stat; plus the verifier body, which is empty
     * for AUTH_NONE and AUTH_SYS.
     */
    public static final int RPC_ACCEPTED_REPLY_HEADER = 6 * 4;

    /** No chunks: the reply always fits inline. */
    public static final ReplyResources NONE = new ReplyResources(0, 0);

    public ReplyResources {
        if (writeChunkOctets < 0 || replyChunkOctets < 0) {
            throw new IllegalArgumentException("negative chunk size");
        }
    }

    /**
     * Plans the resources for one procedure.
     *
     * @param procedure the binding row
     * @param countArgument the Call's count argument (READ count), 0 if it has none
     * @param limits the client's limits
     * @param inlineRoom the octets of Payload stream a Short Reply can carry (the reply inline
     *                   threshold minus the transport header)
     * @param useWriteChunk whether to offer a Write chunk for an eligible result (a client may
     *                      prefer the result inline)
     */
    public static ReplyResources plan(ProcedureBinding procedure, long countArgument, ReplySizeLimits limits,
                                      int inlineRoom, boolean useWriteChunk) {
        long whole = RPC_ACCEPTED_REPLY_HEADER + procedure.maxResultOctets(countArgument, limits);
        if (whole <= inlineRoom) {
            return NONE;
        }
        if (useWriteChunk && procedure.hasEligibleResult()) {
            long reduced = RPC_ACCEPTED_REPLY_HEADER + procedure.reducedResultOctets(countArgument, limits);
            return new ReplyResources(procedure.writeChunkOctets(countArgument, limits),
                    reduced <= inlineRoom ? 0 : reduced);
        }
        return new ReplyResources(0, whole);
    }
}
