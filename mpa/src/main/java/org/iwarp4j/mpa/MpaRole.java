package org.iwarp4j.mpa;

/** The two ends of MPA connection setup (RFC 5044 §7.1). */
public enum MpaRole {
    /** Sends the Request frame; the TCP client. */
    INITIATOR,
    /** Waits for the Request frame and answers with a Reply; the TCP server. */
    RESPONDER
}
