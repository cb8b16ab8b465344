/**
 * The NFS upper-layer binding (RFC 8267), NFSv3, NFSv4.1/4.2 and MOUNT over RPC-over-RDMA.
 *
 * <p>{@code org.iwarp4j.nfs.internal} is not exported.
 */
module org.iwarp4j.nfs {
    requires transitive org.iwarp4j.rpcrdma;
    requires org.slf4j;

    exports org.iwarp4j.nfs;
    exports org.iwarp4j.nfs.binding;
    exports org.iwarp4j.nfs.mount;
    exports org.iwarp4j.nfs.v3;
    exports org.iwarp4j.nfs.v4;
}
