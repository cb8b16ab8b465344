package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrException;

/** stable_how (RFC 1813 §3.3.7): how far a WRITE must be committed before the reply. */
public enum StableHow {
    /** The server may reply before the data reaches stable storage; COMMIT makes it stable. */
    UNSTABLE,
    /** The data, and the metadata needed to retrieve it, is stable before the reply. */
    DATA_SYNC,
    /** The data and all metadata are stable before the reply. */
    FILE_SYNC;

    public int value() {
        return ordinal();
    }

    public static StableHow of(int value) {
        if (value < 0 || value > 2) {
            throw new XdrException("unknown stable_how " + value);
        }
        return values()[value];
    }
}
