package org.iwarp4j.nfs.mount;

/** The numbers of the MOUNT protocol version 3 (RFC 1813 Appendix I). */
public final class MountConstants {

    public static final int PROGRAM = 100005;
    public static final int VERSION = 3;

    /** Largest dirpath (§5.1.1). */
    public static final int MNTPATHLEN = 1024;
    /** Largest name (host or group) (§5.1.1). */
    public static final int MNTNAMLEN = 255;
    /** Largest fhandle3 (§5.1.1). */
    public static final int FHSIZE3 = 64;

    public static final int MOUNTPROC3_NULL = 0;
    public static final int MOUNTPROC3_MNT = 1;
    public static final int MOUNTPROC3_DUMP = 2;
    public static final int MOUNTPROC3_UMNT = 3;
    public static final int MOUNTPROC3_UMNTALL = 4;
    public static final int MOUNTPROC3_EXPORT = 5;

    /** Bound on list lengths a client decodes (mount list, export list, groups, flavors). */
    public static final int MAX_DECODED_LIST = 4096;

    private MountConstants() {
    }
}
