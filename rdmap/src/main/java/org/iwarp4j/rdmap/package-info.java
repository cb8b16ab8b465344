/**
 * RDMAP (RFC 5040) and the verbs API of a software RNIC over TCP.
 *
 * <ul>
 *   <li>The RNIC and its resources: {@link org.iwarp4j.rdmap.Rnic} (its event loops, the STag table its
 *       protection domains share), {@link org.iwarp4j.rdmap.ProtectionDomain},
 *       {@link org.iwarp4j.rdmap.MemoryRegion}, {@link org.iwarp4j.rdmap.CompletionQueue}.</li>
 *   <li>Queue pairs (RFC 5040 §4, §6): {@link org.iwarp4j.rdmap.QueuePair} with its
 *       {@link org.iwarp4j.rdmap.QueuePairSettings} and {@link org.iwarp4j.rdmap.QueuePairState};
 *       work requests {@link org.iwarp4j.rdmap.SendWorkRequest} (Send, Send with Invalidate,
 *       RDMA Write, RDMA Read) and {@link org.iwarp4j.rdmap.ReceiveWorkRequest}, each over
 *       {@link org.iwarp4j.rdmap.ScatterGatherElement}s; results as
 *       {@link org.iwarp4j.rdmap.WorkCompletion}s.</li>
 *   <li>Connection management over MPA: {@link org.iwarp4j.rdmap.Listener},
 *       {@link org.iwarp4j.rdmap.ConnectionRequest} and its
 *       {@link org.iwarp4j.rdmap.ConnectionRequestHandler} (accept or reject with private data),
 *       {@link org.iwarp4j.rdmap.ConnectionLimits}, {@link org.iwarp4j.rdmap.Transport}.</li>
 *   <li>Errors (RFC 5040 §7): {@link org.iwarp4j.rdmap.TerminateReason} for the Terminate a queue
 *       pair sent or received, {@link org.iwarp4j.rdmap.WorkCompletionStatus} for the local user.</li>
 * </ul>
 *
 * <p>The guide, with the threading rules and who releases what, is {@code docs/verbs.md}; the
 * engine behind these types is in the {@code internal} packages, which the module does not export.
 */
package org.iwarp4j.rdmap;
