package org.iwarp4j.tools.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * A work request of the benchmark failed: its completion did not succeed, or its queue pair
 * refused the post because it had already failed (its connection went away after the last
 * completion the client polled, so no failed completion was left to report it). Besides the
 * one-line message it carries a {@link #diagnosis()} for stderr: the failed work request, the
 * completion's status and reason or the refusal, this end's queue pair and, when the server end
 * runs in this process (loopback), the state of the server's queue pairs and any Terminate they
 * sent or received (RFC 5040 §5.4). A failure that happens once in many runs can only be found
 * from what the failed run printed, whichever of the two ways it showed itself.
 */
public final class WorkRequestFailedException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient WorkCompletion completion;
    private final transient QueuePair queuePair;
    private final String workRequest;
    private final String refusal;
    private volatile List<String> serverEnd = List.of();

    private WorkRequestFailedException(String message, String workRequest, WorkCompletion completion,
                                       QueuePair queuePair, String refusal) {
        super(message);
        this.completion = completion;
        this.queuePair = queuePair;
        this.workRequest = workRequest;
        this.refusal = refusal;
    }

    /**
     * A completion with an error status.
     *
     * @param what        what was being done, e.g. {@code RDMA Read}
     * @param workRequest the failed work request as posted, or {@code null} if only its completion is known
     */
    public static WorkRequestFailedException completed(String what, String workRequest, WorkCompletion completion) {
        return new WorkRequestFailedException(what + " failed: " + completion, workRequest, completion,
                completion.queuePair(), null);
    }

    /**
     * A post the queue pair refused.
     *
     * @param what        what was being done, e.g. {@code RDMA Read}
     * @param workRequest the first request of the refused post, in words
     * @param refusal     why the queue pair refused it (the post's exception message)
     */
    public static WorkRequestFailedException refused(String what, String workRequest, QueuePair queuePair,
                                                     String refusal) {
        return new WorkRequestFailedException(what + "s could not be posted: " + refusal, workRequest, null,
                queuePair, refusal);
    }

    /** The failed completion; empty when the post itself was refused. */
    public Optional<WorkCompletion> completion() {
        return Optional.ofNullable(completion);
    }

    /** The queue pair of the failed work request. */
    public QueuePair queuePair() {
        return queuePair;
    }

    /** Adds what the server end's queue pairs looked like (loopback: the server runs in this process). */
    public void serverEnd(List<String> queuePairs) {
        this.serverEnd = List.copyOf(queuePairs);
    }

    /**
     * Lines for stderr, without the message: work request, completion (or the refusal), and both
     * ends' queue pairs.
     */
    public List<String> diagnosis() {
        List<String> lines = new ArrayList<>();
        if (completion == null) {
            lines.add("failed work request: " + workRequest + " (not posted)");
            lines.add("post refused: " + refusal);
        } else {
            lines.add("failed work request: " + (workRequest == null
                    ? "id 0x" + Long.toHexString(completion.workRequestId()) + ", " + completion.opcode()
                    : workRequest));
            lines.add("completion: status " + completion.status() + ", reason: " + reason(completion));
        }
        // Read now, not when the completion was polled: the queue pair may then have been on its way to ERROR.
        lines.add(describe("this end's", queuePair));
        if (serverEnd.isEmpty()) {
            lines.add("server end: not in this process (see its own output)");
        } else {
            lines.addAll(serverEnd);
        }
        return lines;
    }

    /** The {@link #diagnosis()} on {@code err}, each line after {@code prefix}. */
    public void printDiagnosis(PrintWriter err, String prefix) {
        for (String line : diagnosis()) {
            err.println(prefix + line);
        }
        err.flush();
    }

    private static String reason(WorkCompletion c) {
        if (c.terminateReason() != null) {
            return "Terminate " + c.terminateReason();
        }
        if (c.failureCause() != null) {
            return c.failureCause().toString();
        }
        return "none given (a flushed request: the queue pair had failed or its connection had closed)";
    }

    /**
     * One queue pair for the diagnosis: its number, state, the Terminate it sent, received or
     * withheld (and the STag it names), and a local failure that sent none.
     */
    public static String describe(String whose, QueuePair qp) {
        StringBuilder sb = new StringBuilder(whose).append(" queue pair ").append(qp.number())
                .append(": state ").append(qp.state());
        TerminateReason reason = qp.terminateReason();
        if (reason == null) {
            sb.append(", no Terminate sent or received");
        } else {
            sb.append(qp.terminateReceived() ? ", Terminate received: "
                    : qp.terminateWithheld() ? ", Terminate due but withheld: " : ", Terminate sent: ").append(reason);
            qp.terminatedStag().ifPresent(stag -> sb.append(String.format(" (STag %08x)", stag)));
        }
        if (qp.failureCause() != null) {
            sb.append(", failed locally: ").append(qp.failureCause());
        }
        return sb.toString();
    }
}
