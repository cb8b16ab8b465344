package org.iwarp4j.rdmap;

import java.util.OptionalInt;

/**
 * One finished work request, like ibv_wc: its id, what it was, how it ended, how many octets it
 * moved, and for receives whether the Send carried the Solicited Event flag or invalidated one of
 * this end's STags (RFC 5040 §5.3). A completion caused by a Terminate carries its decoded reason;
 * one caused by a local failure that sent no Terminate (an exception in the connection's pipeline,
 * the connection lost inside an FPDU) carries that failure as {@link #failureCause()}.
 */
public final class WorkCompletion {

    private final long workRequestId;
    private final WorkCompletionOpcode opcode;
    private final WorkCompletionStatus status;
    private final int byteLength;
    private final boolean solicitedEvent;
    private final Integer invalidatedStag;
    private final TerminateReason terminateReason;
    private final Throwable failureCause;
    private final QueuePair queuePair;

    WorkCompletion(long workRequestId, WorkCompletionOpcode opcode, WorkCompletionStatus status, int byteLength,
                   boolean solicitedEvent, Integer invalidatedStag, TerminateReason terminateReason,
                   Throwable failureCause, QueuePair queuePair) {
        this.workRequestId = workRequestId;
        this.opcode = opcode;
        this.status = status;
        this.byteLength = byteLength;
        this.solicitedEvent = solicitedEvent;
        this.invalidatedStag = invalidatedStag;
        this.terminateReason = terminateReason;
        this.failureCause = failureCause;
        this.queuePair = queuePair;
    }

    public long workRequestId() {
        return workRequestId;
    }

    public WorkCompletionOpcode opcode() {
        return opcode;
    }

    public WorkCompletionStatus status() {
        return status;
    }

    public boolean isSuccess() {
        return status == WorkCompletionStatus.SUCCESS;
    }

    /** Octets received (receives, Reads) or sent (Sends, Writes). */
    public int byteLength() {
        return byteLength;
    }

    /** A received Send had the Solicited Event flag (Send with SE, RFC 5040 §5.3). */
    public boolean solicitedEvent() {
        return solicitedEvent;
    }

    /** The local STag a received Send with Invalidate invalidated. */
    public OptionalInt invalidatedStag() {
        return invalidatedStag == null ? OptionalInt.empty() : OptionalInt.of(invalidatedStag);
    }

    /** The Terminate that ended the queue pair, sent or received, if one caused this status. */
    public TerminateReason terminateReason() {
        return terminateReason;
    }

    /**
     * The local failure that ended the queue pair without a Terminate, if this completion did not
     * succeed because of one: the same as {@link QueuePair#failureCause()}. Its {@code toString()}
     * names the exception's class and message; a connection the peer closed inside an FPDU reads
     * "connection closed by the peer mid-FPDU". {@code null} for a success or any other failure.
     */
    public Throwable failureCause() {
        return failureCause;
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    @Override
    public String toString() {
        return "WorkCompletion{id=" + workRequestId + ", " + opcode + ", " + status + ", " + byteLength + " octets"
                + (solicitedEvent ? ", SE" : "")
                + (invalidatedStag != null ? String.format(", invalidated STag %08x", invalidatedStag) : "")
                + (terminateReason != null ? ", " + terminateReason : "")
                + (failureCause != null ? ", cause: " + failureCause : "") + '}';
    }
}
