/**
 * The MOUNT protocol version 3 (RFC 1813 Appendix I) on the XDR of {@code org.iwarp4j.oncrpc}.
 * RFC 8267 §5.1: a server offering NFS over RPC-over-RDMA MUST offer MOUNT over TCP.
 */
package org.iwarp4j.nfs.mount;
