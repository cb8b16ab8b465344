/**
 * The NFS upper-layer binding (RFC 8267), NFSv3 and MOUNT over RPC-over-RDMA.
 *
 * <p>{@code org.iwarp4j.nfs.internal} is not exported.
 */
module org.iwarp4j.nfs {
    requires transitive org.iwarp4j.rpcrdma;

    exports org.iwarp4j.nfs;
    exports org.iwarp4j.nfs.binding;
    exports org.iwarp4j.nfs.mount;
    exports org.iwarp4j.nfs.v3;
}
