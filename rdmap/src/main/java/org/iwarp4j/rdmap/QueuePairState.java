package org.iwarp4j.rdmap;

/**
 * Where a queue pair is in its life (RFC 5040 §6): being connected, ready to send, closing in
 * order, terminated by a Terminate message, or in error with all its work flushed.
 */
public enum QueuePairState {
    /** Created; MPA startup not finished. */
    IDLE,
    /** Ready to send: Full Operation, work requests are processed. */
    RTS,
    /** Orderly close in progress: no new work; outstanding work finishes, then TCP closes. */
    CLOSING,
    /** A Terminate was sent or received (RFC 5040 §5.4, §6.2.1); the connection is going down. */
    TERMINATE,
    /** Nothing more is sent or placed; every outstanding work request has completed as flushed. */
    ERROR
}
