package org.iwarp4j.conformance.decode.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;

/**
 * The Read Requests one side sent that the other has not answered yet (RFC 5040 §5.2.1), oldest
 * first, and indexed by sink STag and range. A Read Response that is not the oldest one's is
 * looked up here (RDMAP-R-016, RDMAP-R-017): after octets the capture lacks the count is not
 * bounded by the ORD (RDMAP-R-012 is set aside), so a capture could leave thousands outstanding,
 * and a walk over them for each Response would make decoding quadratic.
 */
final class OutstandingReads {

    /** One outstanding Read Request and, on RPC-over-RDMA, the Call and Read chunk it reads ("" if none). */
    record Outstanding(int id, ReadRequestHeader request, String target) {
    }

    private final Map<Integer, Outstanding> inOrder = new LinkedHashMap<>();
    /** Each Request's sink buffer; one of zero octets holds its sink TO, where its one empty Response goes. */
    private final OfferedSegments<Outstanding> bySink = new OfferedSegments<>();
    private int nextId;

    void add(ReadRequestHeader request, String target) {
        Outstanding o = new Outstanding(nextId++, request, target);
        inOrder.put(o.id(), o);
        bySink.add(o.id(), new RdmaSegment(request.sinkStag(), Math.max(1, request.readMessageSize()),
                request.sinkTaggedOffset()), o);
    }

    int size() {
        return inOrder.size();
    }

    /** The oldest outstanding Read Request, or null. */
    Outstanding oldest() {
        return inOrder.isEmpty() ? null : inOrder.values().iterator().next();
    }

    /** An outstanding Read Request whose sink buffer holds the octet at {@code to} of {@code stag}, or null. */
    Outstanding holding(int stag, long to) {
        return bySink.find(stag, to, 1);
    }

    void answered(Outstanding o) {
        inOrder.remove(o.id());
        bySink.removeOwner(o.id());
    }

    /** The Read Requests older than {@code o} were answered in octets the capture lacks. */
    void answeredBefore(Outstanding o) {
        for (Outstanding first = oldest(); first != o; first = oldest()) {
            answered(first);
        }
    }
}
