/**
 * The event-loop side of a queue pair, split by concern the way Linux siw splits its queue pair
 * code: {@link org.iwarp4j.rdmap.internal.qp.ReceivePath} (inbound segments, siw_qp_rx),
 * {@link org.iwarp4j.rdmap.internal.qp.Transmitter} (outbound work, siw_qp_tx),
 * {@link org.iwarp4j.rdmap.internal.qp.Terminator} (Terminate and the fatal-error teardown),
 * {@link org.iwarp4j.rdmap.internal.qp.Completions} (work completions), and
 * {@link org.iwarp4j.rdmap.internal.qp.WorkQueue} (typed commands from any thread, drained on the
 * event loop). {@link org.iwarp4j.rdmap.internal.qp.QueuePairEngine} is the Netty handler that
 * ties them to a connection. The public {@code QueuePair} reaches them only through
 * {@link org.iwarp4j.rdmap.internal.qp.QueuePairPort}; nothing here is exported.
 */
package org.iwarp4j.rdmap.internal.qp;
