package org.iwarp4j.rpcrdma.internal;

import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionStatus;

/** A work request posted for an RPC did not succeed; its completion status says why. */
public final class RdmaOperationException extends RpcTransportException {

    private static final long serialVersionUID = 1L;

    private final transient SendWorkRequest.Kind kind;
    private final transient WorkCompletionStatus status;

    RdmaOperationException(SendWorkRequest.Kind kind, WorkCompletionStatus status, String detail) {
        super(kind + " failed: " + status + (detail == null ? "" : " (" + detail + ")"));
        this.kind = kind;
        this.status = status;
    }

    public SendWorkRequest.Kind kind() {
        return kind;
    }

    public WorkCompletionStatus status() {
        return status;
    }

    /**
     * The peer refused the operation on the memory it named (RFC 8166 §4.5.3 "RDMA operational
     * errors"): a bad chunk, not a connection that merely went away.
     */
    public boolean isRemoteError() {
        return status == WorkCompletionStatus.REMOTE_ACCESS_ERROR || status == WorkCompletionStatus.REMOTE_OPERATION_ERROR;
    }
}
