/**
 * The NFS upper-layer binding for RPC-over-RDMA (RFC 8267).
 * Not yet implemented: see the project's issue tracker.
 */
package org.iwarp4j.nfs;
