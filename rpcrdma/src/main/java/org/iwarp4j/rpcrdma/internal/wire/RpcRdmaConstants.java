package org.iwarp4j.rpcrdma.internal.wire;

/**
 * The numbers of RFC 8166 (RPC-over-RDMA Version 1) and RFC 8797 (its connection private data), in
 * the order the RFCs give them. All header fields are XDR: 32-bit big-endian words.
 */
public final class RpcRdmaConstants {

    // ---- Fixed header, RFC 8166 §4.2 (positions fixed for all versions) ----

    /** rdma_vers of this protocol (§4.2.2); the only version supported, so ERR_VERS reports 1..1. */
    public static final int VERSION = 1;
    /** Octets of the four fixed words: rdma_xid, rdma_vers, rdma_credit, rdma_proc. */
    public static final int FIXED_HEADER_LENGTH = 16;
    /** A minimal RDMA_MSG or RDMA_NOMSG header: the fixed words and three empty lists (§4.5). */
    public static final int MIN_HEADER_LENGTH = 28;

    // ---- rdma_proc, §4.2.4 ----

    /** Chunk lists and a Payload stream follow. */
    public static final int RDMA_MSG = 0;
    /** Chunk lists follow; one of them holds the Payload stream. */
    public static final int RDMA_NOMSG = 1;
    /** Reserved (RFC 5666 padded message); never sent (§4.6.1). */
    public static final int RDMA_MSGP = 2;
    /** Reserved (RFC 5666 Read-Read model); never sent (§4.6.2), except by the responder-provided Read chunks draft. */
    public static final int RDMA_DONE = 3;
    /** An error report about a Call's transport header. */
    public static final int RDMA_ERROR = 4;

    // ---- rpc_rdma_errcode, §4.1.2 / §4.5 ----

    /** The Responder does not support the Call's rdma_vers; low and high supported versions follow. */
    public static final int ERR_VERS = 1;
    /** Any other error in the Call's transport header. */
    public static final int ERR_CHUNK = 2;
    /** RDMA_ERROR with ERR_CHUNK: fixed words and the error code. */
    public static final int ERR_CHUNK_LENGTH = 20;
    /** RDMA_ERROR with ERR_VERS: fixed words, the error code, low and high. */
    public static final int ERR_VERS_LENGTH = 28;

    // ---- XDR encodings of the chunk lists, §4.7 ----

    /** A plain segment: handle, length, offset (two words). */
    public static final int SEGMENT_LENGTH = 16;
    /** A read segment: position and a plain segment. */
    public static final int READ_SEGMENT_LENGTH = 20;
    /** One XDR word: a list discriminator, a count, a position. */
    public static final int WORD = 4;
    /** XDR optional-data discriminator: absent / end of list. */
    public static final int NOT_PRESENT = 0;
    /** XDR optional-data discriminator: an item follows. */
    public static final int PRESENT = 1;

    // ---- Connection, §3.3 and §5 ----

    /** The inline threshold each way when nothing else was agreed (§3.3.3, RFC 8797 §5.1). */
    public static final int DEFAULT_INLINE_THRESHOLD = 1024;
    /** Credits a Requester may assume before the first Reply (§3.3.3). */
    public static final int INITIAL_CREDITS = 1;
    /** The NFS/RDMA port (§5, §9); TCP for iWARP. */
    public static final int NFS_RDMA_PORT = 20049;

    // ---- RFC 8797 private data, §4 ----

    /** Format Identifier of the RPC-over-RDMA Version 1 block. */
    public static final int PRIVATE_DATA_FORMAT_IDENTIFIER = 0xF6AB0E18;
    /** Version of the 8-octet block this document defines. */
    public static final int PRIVATE_DATA_VERSION = 1;
    /** Octets of a version 1 block. */
    public static final int PRIVATE_DATA_LENGTH = 8;
    /** Octet 5, bit 0: the sender accepts RDMA Send with Invalidate. The other seven bits are reserved. */
    public static final int PRIVATE_DATA_REMOTE_INVALIDATION = 0x01;
    /** Size unit of the Send Size and Receive Size octets: encoded = bytes / 1024 - 1 (§4.2). */
    public static final int PRIVATE_DATA_SIZE_UNIT = 1024;
    /** The largest size the octets can say: 256 units. */
    public static final int PRIVATE_DATA_MAX_SIZE = 256 * PRIVATE_DATA_SIZE_UNIT;

    private RpcRdmaConstants() {
    }
}
