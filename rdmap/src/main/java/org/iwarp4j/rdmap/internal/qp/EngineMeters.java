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
}
