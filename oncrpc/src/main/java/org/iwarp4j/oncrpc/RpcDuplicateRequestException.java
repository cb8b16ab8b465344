package org.iwarp4j.oncrpc;

/**
 * How an {@link RpcDispatcher} fails a retransmitted call it does not answer: the first
 * transmission's reply is not kept (longer than {@link DuplicateRequestCacheLimits#replyOctets()},
 * or that call was dropped or forgotten while it ran). The server transport drops the message
 * without a reply of any kind, as knfsd drops such a retransmission; the client retransmits again.
 */
public final class RpcDuplicateRequestException extends RpcException {

    private static final long serialVersionUID = 1L;

    public RpcDuplicateRequestException(String message) {
        super(message);
    }
}
