package org.iwarp4j.rdmap.internal.qp;

import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rdmap.WorkCompletionStatus;

/**
 * Every work completion of one queue pair goes out here (siw_sqe_complete / siw_rqe_complete):
 * each gives its work queue slot back and reaches the completion queue exactly once. The one
 * exception is an unsignalled send request that succeeds on a queue pair that signals per request
 * ({@link org.iwarp4j.rdmap.QueuePairSettings#signalAllSends()}): it produces nothing, and its
 * slot goes back with the next send completion, which, in posting order, implies it.
 */
final class Completions {

    /**
     * What fails the queue pair when a completion does not reach the user: its engine. A queue
     * pair that never ran one (flushed before any connection) is in ERROR already and has none.
     */
    interface Undelivered {
        /**
         * {@code cq} was full and the completion is lost. Called inside the completing code (a
         * send queue's ordered completion, a receive's delivery, a flush): it must leave it
         * consistent to go on, and may be called again by the flush it starts.
         */
        void overrun(CompletionQueue cq);

        /**
         * Delivering the completion threw {@code failure}: the completion queue's listener did,
         * which it must not. Called where {@link #overrun} is, under the same conditions.
         */
        void failed(Throwable failure);
    }

    private final QueuePairPort port;
    private final boolean signalAllSends;
    /** Send slots of unsignalled successes since the last send completion. */
    private int unsignalledDone;
    private Undelivered undelivered;

    Completions(QueuePairPort port) {
        this.port = port;
        this.signalAllSends = port.settings().signalAllSends();
        // No engine (flushed before any connection): the queue pair is in ERROR already; a
        // listener's exception is kept as its failure cause, not thrown into the close() flushing.
        this.undelivered = new Undelivered() {
            @Override
            public void overrun(CompletionQueue cq) {
            }

            @Override
            public void failed(Throwable failure) {
                port.failed(failure);
            }
        };
    }

    /** The engine that fails the queue pair when a completion does not reach the user. */
    void failTo(Undelivered engine) {
        this.undelivered = engine;
    }

    /**
     * A send-queue request finished (in posting order: the {@link Transmitter} sees to that). An
     * error always completes (siw: "all errors turn the wqe into signalled").
     */
    void send(SendWorkRequest request, WorkCompletionOpcode opcode, WorkCompletionStatus status, int length,
              TerminateReason reason) {
        if (status == WorkCompletionStatus.SUCCESS && !signalAllSends && !request.signalled()) {
            unsignalledDone++;
            return;
        }
        int slots = 1 + unsignalledDone;
        unsignalledDone = 0;
        complete(QueuePairPort.Queue.SEND, slots, request.id(), opcode, status, length, false, null, reason);
    }

    /** A receive was filled by a Send (RFC 5040 §5.3). */
    void received(long workRequestId, int length, boolean solicitedEvent, Integer invalidatedStag) {
        complete(QueuePairPort.Queue.RECEIVE, 1, workRequestId, WorkCompletionOpcode.RECEIVE,
                WorkCompletionStatus.SUCCESS, length, solicitedEvent, invalidatedStag, null);
    }

    /** A receive that ends without data: flushed, or refused at posting. */
    void receiveFailed(long workRequestId, WorkCompletionStatus status, TerminateReason reason) {
        complete(QueuePairPort.Queue.RECEIVE, 1, workRequestId, WorkCompletionOpcode.RECEIVE, status, 0, false,
                null, reason);
    }

    /**
     * Hands one completion to the port. A completion queue overrun loses the completion: whoever
     * waits for its work request would wait forever, and later completions would land after the
     * gap, so the queue pair must not go on as if nothing happened ({@link Undelivered}). A
     * listener that throws is contained here, the one place every completion passes: from a
     * write's listener Netty would only log it, and from the work queue's drain it would stop the
     * commands behind it and the drain's flush until the next post.
     */
    private void complete(QueuePairPort.Queue queue, int slots, long workRequestId, WorkCompletionOpcode opcode,
                          WorkCompletionStatus status, int byteLength, boolean solicitedEvent, Integer invalidatedStag,
                          TerminateReason reason) {
        boolean delivered;
        try {
            delivered = port.complete(queue, slots, workRequestId, opcode, status, byteLength, solicitedEvent,
                    invalidatedStag, reason);
        } catch (RuntimeException | Error e) {
            undelivered.failed(e);
            return;
        }
        if (!delivered) {
            undelivered.overrun(queue == QueuePairPort.Queue.SEND ? port.settings().sendCompletionQueue()
                    : port.settings().receiveCompletionQueue());
        }
    }

    /** Work posted after the queue pair failed, or still queued when it did: flushed. */
    WorkCommand.Handler flushing() {
        return completing(WorkCompletionStatus.FLUSHED);
    }

    /**
     * Completes the work request of each command at once with {@code status} and the queue pair's
     * Terminate reason, if any; closes, aborts and drains do nothing.
     */
    WorkCommand.Handler completing(WorkCompletionStatus status) {
        return new WorkCommand.Handler() {
            @Override
            public void postSend(SendWorkRequest request) {
                send(request, opcodeOf(request.kind()), status, 0, port.terminateReason());
            }

            @Override
            public void postReceive(ReceiveWorkRequest request) {
                receiveFailed(request.id(), status, port.terminateReason());
            }

            @Override
            public void closeGracefully() {
            }

            @Override
            public void abort() {
            }

            @Override
            public void drained() {
            }

            @Override
            public void commandFailed(WorkCommand command, Throwable cause) {
                port.failed(cause); // completing threw: kept as the failure cause, as a listener's is
            }
        };
    }

    /** The completion's opcode for a send-queue request of {@code kind}: every Send type completes as SEND. */
    static WorkCompletionOpcode opcodeOf(SendWorkRequest.Kind kind) {
        return switch (kind) {
            case RDMA_WRITE -> WorkCompletionOpcode.RDMA_WRITE;
            case RDMA_READ -> WorkCompletionOpcode.RDMA_READ;
            case LOCAL_INVALIDATE -> WorkCompletionOpcode.LOCAL_INVALIDATE;
            default -> WorkCompletionOpcode.SEND;
        };
    }
}
