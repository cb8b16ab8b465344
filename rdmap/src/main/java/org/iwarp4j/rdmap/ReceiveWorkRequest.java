package org.iwarp4j.rdmap;

import java.util.List;

/**
 * A receive buffer posted to a queue pair (RFC 5040 §5.3: each Send consumes exactly one): the
 * incoming message is scattered over {@link #localSegments()} in order. A segment that is not
 * local-write memory of the queue pair's protection domain completes the request {@link
 * WorkCompletionStatus#LOCAL_PROTECTION_ERROR} when it is posted, one that ends past its region
 * {@link WorkCompletionStatus#LOCAL_LENGTH_ERROR}; the queue pair goes on. A Send longer than their
 * total ends the connection with a Terminate (DDP 0x2/0x05) and completes this request in error.
 * A Send that finds the region of a segment deregistered or invalidated since the post places
 * nothing there: this request completes {@link WorkCompletionStatus#LOCAL_PROTECTION_ERROR} and the
 * queue pair fails with a Terminate (DDP Local Catastrophic, 0x1/0x0/0x00).
 */
public final class ReceiveWorkRequest {

    private final long id;
    private final List<ScatterGatherElement> localSegments;

    public ReceiveWorkRequest(long id, ScatterGatherElement... scatter) {
        this.id = id;
        this.localSegments = List.of(scatter);
    }

    public long id() {
        return id;
    }

    public List<ScatterGatherElement> localSegments() {
        return localSegments;
    }

    public long length() {
        long total = 0;
        for (ScatterGatherElement sge : localSegments) {
            total += sge.length();
        }
        return total;
    }

    @Override
    public String toString() {
        return "ReceiveWorkRequest{id=" + id + ", " + length() + " octets in " + localSegments.size() + " segments}";
    }
}
