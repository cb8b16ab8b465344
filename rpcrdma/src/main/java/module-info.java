/**
 * RPC-over-RDMA Version 1 (RFC 8166, RFC 8797) on the verbs API.
 *
 * <p>{@code org.iwarp4j.rpcrdma.internal} and {@code org.iwarp4j.rpcrdma.internal.wire} are not exported.
 */
module org.iwarp4j.rpcrdma {
    requires transitive org.iwarp4j.oncrpc;
    requires transitive org.iwarp4j.rdmap;
    requires org.slf4j;

    exports org.iwarp4j.rpcrdma;
    exports org.iwarp4j.rpcrdma.sample;
}
