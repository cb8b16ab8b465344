/**
 * RPC-over-RDMA Version 1 (RFC 8166, RFC 8797) on the verbs API.
 *
 * <p>{@code org.iwarp4j.rpcrdma.internal} is not exported; {@code org.iwarp4j.rpcrdma.internal.wire} only to the
 * capture decoder ({@code org.iwarp4j.conformance}).
 */
module org.iwarp4j.rpcrdma {
    requires transitive org.iwarp4j.oncrpc;
    requires transitive org.iwarp4j.rdmap;
    requires org.slf4j;

    exports org.iwarp4j.rpcrdma;
    exports org.iwarp4j.rpcrdma.sample;
    // The capture decoder (iwarp decode) reads transport headers and RFC 8797 private data with these codecs.
    exports org.iwarp4j.rpcrdma.internal.wire to org.iwarp4j.conformance;
}
