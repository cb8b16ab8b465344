/**
 * Conformance tools for interop testers. {@code org.iwarp4j.conformance.decode} reads a pcap or
 * pcapng capture, reassembles its TCP connections, decodes the iWARP connections in it (MPA, DDP,
 * RDMAP, RPC-over-RDMA, ONC RPC) with the stack's own decoders and checks what it sees against the
 * RFC rules of the requirement catalogue ({@code docs/requirements/}); {@code
 * org.iwarp4j.conformance.probe} connects to a remote iWARP listener and reports how it behaves.
 */
module org.iwarp4j.conformance {
    requires transitive org.iwarp4j.rdmap;
    requires org.iwarp4j.rpcrdma;
    requires org.iwarp4j.nfs;

    exports org.iwarp4j.conformance.decode;
    exports org.iwarp4j.conformance.probe;
}
