package org.iwarp4j.rdmap;

import java.util.List;
import java.util.Objects;

/**
 * A work request for the send queue (RFC 5040 §5): one of the Send types, an RDMA Write, an RDMA
 * Read, or a local invalidate. Immutable. Every one produces a {@link WorkCompletion}, unless it is
 * unsignalled ({@link #withSignalled(boolean)}) on a queue pair that signals per request.
 *
 * <ul>
 *   <li>Sends gather their payload from {@link #localSegments()} into the peer's next posted
 *       receive; with Solicited Event (SE) and/or Invalidate of a peer STag.</li>
 *   <li>An RDMA Write gathers from {@link #localSegments()} into the peer's tagged buffer at
 *       ({@link #remoteStag()}, {@link #remoteTaggedOffset()}).</li>
 *   <li>An RDMA Read fills the one local segment (the Data Sink) from the peer's buffer at
 *       ({@link #remoteStag()}, {@link #remoteTaggedOffset()}); the local region needs
 *       {@link org.iwarp4j.ddp.Access#LOCAL_WRITE}. A zero-length Read is allowed (RFC 5040 §5.2.1).</li>
 * </ul>
 */
public final class SendWorkRequest {

    /** What a send-queue work request asks for. */
    public enum Kind { SEND, SEND_WITH_SOLICITED_EVENT, SEND_WITH_INVALIDATE, SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE,
        RDMA_WRITE, RDMA_READ, LOCAL_INVALIDATE }

    private final long id;
    private final Kind kind;
    private final List<ScatterGatherElement> localSegments;
    private final int remoteStag;
    private final long remoteTaggedOffset;
    private final boolean signalled;

    private SendWorkRequest(long id, Kind kind, List<ScatterGatherElement> localSegments, int remoteStag,
                            long remoteTaggedOffset) {
        this(id, kind, List.copyOf(localSegments), remoteStag, remoteTaggedOffset, true);
    }

    private SendWorkRequest(long id, Kind kind, List<ScatterGatherElement> localSegments, int remoteStag,
                            long remoteTaggedOffset, boolean signalled) {
        this.id = id;
        this.kind = kind;
        this.localSegments = localSegments;
        this.remoteStag = remoteStag;
        this.remoteTaggedOffset = remoteTaggedOffset;
        this.signalled = signalled;
    }

    public static SendWorkRequest send(long id, ScatterGatherElement... gather) {
        return new SendWorkRequest(id, Kind.SEND, List.of(gather), 0, 0);
    }

    public static SendWorkRequest sendWithSolicitedEvent(long id, ScatterGatherElement... gather) {
        return new SendWorkRequest(id, Kind.SEND_WITH_SOLICITED_EVENT, List.of(gather), 0, 0);
    }

    /** A Send that also invalidates {@code peerStag} at the peer (RFC 5040 §5.3). */
    public static SendWorkRequest sendWithInvalidate(long id, int peerStag, ScatterGatherElement... gather) {
        return new SendWorkRequest(id, Kind.SEND_WITH_INVALIDATE, List.of(gather), peerStag, 0);
    }

    public static SendWorkRequest sendWithSolicitedEventAndInvalidate(long id, int peerStag,
                                                                      ScatterGatherElement... gather) {
        return new SendWorkRequest(id, Kind.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE, List.of(gather), peerStag, 0);
    }

    public static SendWorkRequest rdmaWrite(long id, int remoteStag, long remoteTaggedOffset,
                                            ScatterGatherElement... gather) {
        return new SendWorkRequest(id, Kind.RDMA_WRITE, List.of(gather), remoteStag, remoteTaggedOffset);
    }

    /** An RDMA Read of {@code sink.length()} octets from the peer into {@code sink}. */
    public static SendWorkRequest rdmaRead(long id, int remoteStag, long remoteTaggedOffset,
                                           ScatterGatherElement sink) {
        return new SendWorkRequest(id, Kind.RDMA_READ, List.of(Objects.requireNonNull(sink)), remoteStag,
                remoteTaggedOffset);
    }

    /**
     * Invalidates one of this end's own STags once earlier work requests have completed: it takes
     * effect in send-queue order, when every request posted before it on this queue pair has
     * completed (an RDMA Read once its Read Response is placed, whether it was outstanding or
     * waiting for ORD), so those requests keep their memory. A request posted after it that uses
     * the region completes {@link WorkCompletionStatus#LOCAL_PROTECTION_ERROR}, as the region is
     * invalid by then in queue order; so does the invalidate if, when its turn comes, {@code stag}
     * names no registered region of the queue pair's protection domain (never registered, or
     * deregistered). A region that is registered but invalid already (the peer's Send with
     * Invalidate, or an earlier invalidate) counts: the invalidate succeeds, as siw's does, since
     * the RDMA verbs let an invalidate name an STag that is invalid already. Flushed, it
     * invalidates nothing.
     */
    public static SendWorkRequest localInvalidate(long id, int stag) {
        return new SendWorkRequest(id, Kind.LOCAL_INVALIDATE, List.of(), stag, 0);
    }

    public long id() {
        return id;
    }

    public Kind kind() {
        return kind;
    }

    public List<ScatterGatherElement> localSegments() {
        return localSegments;
    }

    /** Total octets of the local segments. */
    public long length() {
        long total = 0;
        for (ScatterGatherElement sge : localSegments) {
            total += sge.length();
        }
        return total;
    }

    /** The peer's STag for Writes and Reads; the STag to invalidate for the Invalidate kinds. */
    public int remoteStag() {
        return remoteStag;
    }

    public long remoteTaggedOffset() {
        return remoteTaggedOffset;
    }

    /**
     * Whether this request asks for a completion when it succeeds: {@code true} unless made with
     * {@link #withSignalled withSignalled(false)}. Only a queue pair built with {@link
     * QueuePairSettings.Builder#signalAllSends signalAllSends(false)} heeds {@code false}.
     */
    public boolean signalled() {
        return signalled;
    }

    /**
     * This request, signalled or not (ibv_send_wr's {@code IBV_SEND_SIGNALED}, siw's {@code
     * SIW_WQE_SIGNALLED}). Requests are signalled by default. On a queue pair built with {@link
     * QueuePairSettings.Builder#signalAllSends signalAllSends(false)} an unsignalled request
     * that succeeds produces no {@link WorkCompletion}; one that fails, or is flushed because the
     * queue pair failed, produces its error completion all the same. Its send-queue slot is given
     * back only when a later request's completion reaches the completion queue (completions are
     * in posting order, RFC 5040 §5.5 #15), so at least one request in every {@link
     * QueuePairSettings#sendQueueDepth()} must be signalled, or the send queue fills and {@link
     * QueuePair#postSend} refuses more. On a queue pair that signals all sends (the default) the
     * flag is ignored, as {@code IBV_SEND_SIGNALED} is with {@code sq_sig_all}.
     */
    public SendWorkRequest withSignalled(boolean signalled) {
        return signalled == this.signalled ? this
                : new SendWorkRequest(id, kind, localSegments, remoteStag, remoteTaggedOffset, signalled);
    }

    @Override
    public String toString() {
        return "SendWorkRequest{id=" + id + ", " + kind + ", " + length() + " octets"
                + (kind == Kind.RDMA_WRITE || kind == Kind.RDMA_READ
                        ? String.format(", remote %08x@%x", remoteStag, remoteTaggedOffset) : "")
                + (signalled ? "" : ", unsignalled") + '}';
    }
}
