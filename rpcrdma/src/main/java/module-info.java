/**
 * RPC-over-RDMA Version 1 (RFC 8166, RFC 8797) on the verbs API.
 *
 * <p>{@code org.iwarp4j.rpcrdma.internal} is exported only to the NFS module (its server keeps its READ
 * buffers in a {@code ReadSinks}); {@code org.iwarp4j.rpcrdma.internal.wire} only to the capture decoder
 * ({@code org.iwarp4j.conformance}).
 */
module org.iwarp4j.rpcrdma {
    requires transitive org.iwarp4j.oncrpc;
    requires transitive org.iwarp4j.rdmap;
    requires org.slf4j;

    exports org.iwarp4j.rpcrdma;
    exports org.iwarp4j.rpcrdma.sample;
    // The capture decoder (iwarp decode) reads transport headers and RFC 8797 private data with these codecs.
    exports org.iwarp4j.rpcrdma.internal.wire to org.iwarp4j.conformance;
    // The NFS server's READ buffers are kept as the connections' RDMA data buffers are (ReadSinks, DataMemory).
    exports org.iwarp4j.rpcrdma.internal to org.iwarp4j.nfs;
}
