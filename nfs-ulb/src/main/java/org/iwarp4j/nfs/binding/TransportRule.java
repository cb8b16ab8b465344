package org.iwarp4j.nfs.binding;

/** Which transport an RPC program binding requires of a server that offers NFS/RDMA. */
public enum TransportRule {
    /** The program runs on RPC-over-RDMA (and on TCP): NFS itself (RFC 8267 §4, §6). */
    RPC_OVER_RDMA,
    /** The server MUST offer the program over TCP (RFC 8267 §5.1: MOUNT, NLM, NSM). */
    TCP,
    /** The program shares the NFS program's connection, RDMA included (RFC 8267 §5.2: NFSACL). */
    SAME_CONNECTION_AS_NFS
}
