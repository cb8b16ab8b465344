package org.iwarp4j.tools.nfs;

/** What NFS travels on after MOUNT (which is always TCP, RFC 8267 §5.1). */
public enum NfsTransport {
    /** NFS over RPC-over-RDMA (RFC 8166, RFC 8267) on iwarp4j's software RNIC. */
    RDMA,
    /** NFS over ONC RPC on plain TCP (RFC 5531 record marking). */
    TCP
}
