package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrException;

/** createmode3 (RFC 1813 §3.3.8). */
public enum CreateMode3 {
    /** Create, or truncate per the attributes if the file exists. */
    UNCHECKED,
    /** Create; NFS3ERR_EXIST if the file exists. */
    GUARDED,
    /** Create with a verifier so a retransmission finds its own file (§3.3.8). */
    EXCLUSIVE;

    public int value() {
        return ordinal();
    }

    public static CreateMode3 of(int value) {
        if (value < 0 || value > 2) {
            throw new XdrException("unknown createmode3 " + value);
        }
        return values()[value];
    }
}
