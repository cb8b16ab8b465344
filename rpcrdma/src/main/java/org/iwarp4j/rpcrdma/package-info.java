/**
 * RPC-over-RDMA Version 1 (RFC 8166) with RFC 8797 connection private data.
 * Not yet implemented: see the project's issue tracker.
 */
package org.iwarp4j.rpcrdma;
