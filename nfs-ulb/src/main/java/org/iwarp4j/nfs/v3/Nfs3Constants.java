package org.iwarp4j.nfs.v3;

/** The numbers of RFC 1813 (NFS version 3), in the order the RFC gives them. */
public final class Nfs3Constants {

    /** The NFS program (RFC 1813 §2.2). */
    public static final int PROGRAM = 100003;
    /** NFS version 3. */
    public static final int VERSION = 3;

    /** The largest file handle, octets (§2.4). */
    public static final int NFS3_FHSIZE = 64;
    /** Octets of a READDIR cookie verifier (§2.4). */
    public static final int NFS3_COOKIEVERFSIZE = 8;
    /** Octets of an exclusive CREATE verifier (§2.4). */
    public static final int NFS3_CREATEVERFSIZE = 8;
    /** Octets of a WRITE verifier (§2.4). */
    public static final int NFS3_WRITEVERFSIZE = 8;

    /** Procedures (§3.3). */
    public static final int NFSPROC3_NULL = 0;
    public static final int NFSPROC3_GETATTR = 1;
    public static final int NFSPROC3_SETATTR = 2;
    public static final int NFSPROC3_LOOKUP = 3;
    public static final int NFSPROC3_ACCESS = 4;
    public static final int NFSPROC3_READLINK = 5;
    public static final int NFSPROC3_READ = 6;
    public static final int NFSPROC3_WRITE = 7;
    public static final int NFSPROC3_CREATE = 8;
    public static final int NFSPROC3_MKDIR = 9;
    public static final int NFSPROC3_SYMLINK = 10;
    public static final int NFSPROC3_MKNOD = 11;
    public static final int NFSPROC3_REMOVE = 12;
    public static final int NFSPROC3_RMDIR = 13;
    public static final int NFSPROC3_RENAME = 14;
    public static final int NFSPROC3_LINK = 15;
    public static final int NFSPROC3_READDIR = 16;
    public static final int NFSPROC3_READDIRPLUS = 17;
    public static final int NFSPROC3_FSSTAT = 18;
    public static final int NFSPROC3_FSINFO = 19;
    public static final int NFSPROC3_PATHCONF = 20;
    public static final int NFSPROC3_COMMIT = 21;

    /** ACCESS bits (§3.3.4). */
    public static final int ACCESS3_READ = 0x0001;
    public static final int ACCESS3_LOOKUP = 0x0002;
    public static final int ACCESS3_MODIFY = 0x0004;
    public static final int ACCESS3_EXTEND = 0x0008;
    public static final int ACCESS3_DELETE = 0x0010;
    public static final int ACCESS3_EXECUTE = 0x0020;

    /** FSINFO properties (§3.3.19). */
    public static final int FSF3_LINK = 0x0001;
    public static final int FSF3_SYMLINK = 0x0002;
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    public static final int FSF3_CANSETTIME = 0x0010;

    /**
     * Decoding bound for filename3 and nfspath3, which RFC 1813 leaves unbounded: a longer name is
     * GARBAGE_ARGS; up to it, a server answers NFS3ERR_NAMETOOLONG beyond its own NAME_MAX.
     */
    public static final int MAX_DECODED_NAME = 4096;
    /** Decoding bound for a path (Linux's PATH_MAX). */
    public static final int MAX_DECODED_PATH = 4096;

    private Nfs3Constants() {
    }
}
