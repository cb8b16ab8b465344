package org.iwarp4j.rdmap.internal.qp;

import java.util.OptionalInt;
import org.iwarp4j.ddp.DdpMeters;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rdmap.WorkCompletionStatus;

/**
 * What the engine needs of its public {@link QueuePair} and RNIC, and nothing more: the engine
 * lives in an internal package and cannot see their package-private state, so the queue pair
 * hands it this view. Methods that change state are called on the connection's event loop.
 */
public interface QueuePairPort {

    /** Which work queue a completion belongs to. */
    enum Queue { SEND, RECEIVE }

    QueuePair queuePair();

    QueuePairSettings settings();

    StagTable stagTable();

    /** The queue pair's DDP stream id (for stream-bound regions). */
    long streamId();

    EngineMeters meters();

    /** How often this RNIC's queue pairs may log their failures (shared by all of them). */
    LogRateLimit failureLogLimit();

    DdpMeters ddpMeters();

    /** Typed commands posted from any thread. */
    WorkQueue workQueue();

    /**
     * Gives back {@code slots} slots of {@code queue} (more than one when the completion also ends
     * unsignalled send requests before it), builds the completion, counts it and hands it to the
     * queue's completion queue.
     *
     * @return {@code false} if the completion queue was full (an overrun): the completion is lost,
     *     and the caller must fail the queue pair
     */
    boolean complete(Queue queue, int slots, long workRequestId, WorkCompletionOpcode opcode, WorkCompletionStatus status,
                  int byteLength, boolean solicitedEvent, Integer invalidatedStag, TerminateReason reason);

    QueuePairState state();

    void moveTo(QueuePairState state);

    /**
     * MPA startup succeeded: RTS (from IDLE only: a close asked for meanwhile keeps CLOSING),
     * posted work drained, the established future completed.
     */
    void established(NegotiatedParameters parameters);

    void failedToEstablish(Throwable cause);

    /** Records the first Terminate reason, its direction and the STag it names. */
    void terminated(TerminateReason reason, boolean received, OptionalInt stag);

    TerminateReason terminateReason();

    void withheldTerminate();

    /**
     * Records the first local failure that ends the queue pair without a Terminate; every later
     * failed completion carries it. Called before the outstanding work is failed.
     */
    void failed(Throwable cause);

    /** The connection is closed and everything was flushed. */
    void closedDown();
}
