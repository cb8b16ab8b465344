package org.iwarp4j.nfs.binding;

/**
 * The numbers of RFC 8267 and the NFS documents it binds, in the order RFC 8267 gives them.
 */
public final class NfsBindingConstants {

    /** The NFS RPC program, the same on TCP and on RPC-over-RDMA (RFC 8267 §4, §6). */
    public static final int NFS_PROGRAM = 100003;
    /** MOUNT (RFC 8267 §5: versions 2 and 3; RFC 1813 Appendix I for version 3). */
    public static final int MOUNT_PROGRAM = 100005;
    /** NLM, the Network Lock Manager (RFC 8267 §5: versions 1, 3 and 4). */
    public static final int NLM_PROGRAM = 100021;
    /** NSM, the Network Status Monitor (RFC 8267 §5: version 1). */
    public static final int NSM_PROGRAM = 100024;
    /** NFSACL, no public definition (RFC 8267 §5, §5.2). */
    public static final int NFSACL_PROGRAM = 100227;
    /**
     * nfsrdma, the port IANA assigned for NFS/RDMA (RFC 8267 §9): an NFSv4 server listens there for
     * RPC-over-RDMA, so that clients need no portmapper to find it (ULB-R-015); the default of
     * {@code iwarp nfs serve}.
     */
    public static final int NFS_RDMA_PORT = 20049;
    /** The port NFS over TCP listens on (RFC 8267 §6.3, RFC 8166 §8.2.2.1). */
    public static final int NFS_TCP_PORT = 2049;

    /** Read chunks at a non-zero Position every NFSv4 server MUST accept in one Call (RFC 8267 §6.4.2). */
    public static final int NFS4_MIN_ACCEPTED_NONZERO_READ_CHUNKS = 1;
    /** Write chunks every NFSv4 server MUST accept in one Call (RFC 8267 §6.4.2). */
    public static final int NFS4_MIN_ACCEPTED_WRITE_CHUNKS = 1;
    /** RDMA segments per chunk every NFSv4 server MUST accept (RFC 8267 §6.4.2). */
    public static final int NFS4_MIN_ACCEPTED_SEGMENTS_PER_CHUNK = 16;

    /** NFSv2 MAXDATA: the largest READ or WRITE (RFC 1094 §2.3). */
    public static final int NFS2_MAXDATA = 8192;
    /** NFSv2 MAXPATHLEN: the largest pathname (RFC 1094 §2.3). */
    public static final int NFS2_MAXPATHLEN = 1024;
    /** NFSv2 FHSIZE: an NFSv2 file handle is this many opaque octets (RFC 1094 §2.3). */
    public static final int NFS2_FHSIZE = 32;
    /** NFSv3 NFS3_FHSIZE: the largest NFSv3 file handle (RFC 1813 §2.4). */
    public static final int NFS3_FHSIZE = 64;
    /** NFSv4 NFS4_FHSIZE (RFC 7530 §2.2). */
    public static final int NFS4_FHSIZE = 128;
    /** NFSv4 NFS4_OPAQUE_LIMIT (RFC 7530 §2.2). */
    public static final int NFS4_OPAQUE_LIMIT = 1024;

    private NfsBindingConstants() {
    }
}
