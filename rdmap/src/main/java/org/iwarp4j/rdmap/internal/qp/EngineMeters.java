package org.iwarp4j.rdmap.internal.qp;

import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.RdmapOpcode;

/** The RNIC's RDMAP meters as the engine updates them (thread-safe; shared by the RNIC's queue pairs). */
public interface EngineMeters {

    void sent(RdmapOpcode opcode);

    void received(RdmapOpcode opcode);

    void wakeUpWriteSent();

    void terminateWithheld();

    void terminateCloseTimedOut();

    void terminateSent(TerminateReason reason);

    void terminateReceived(TerminateReason reason);

    /**
     * An RDMA Read Request of a work request went out; {@code outstanding} Reads of this queue pair
     * (it included) now wait for their Read Response, never more than ORD (RFC 6581 §9.1).
     */
    void readIssued(int outstanding);

    /** A posted RDMA Read had to wait because ORD Reads were already outstanding on its queue pair. */
    void readWaitedForOrd();
}
