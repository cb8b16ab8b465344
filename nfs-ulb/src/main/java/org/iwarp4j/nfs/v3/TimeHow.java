package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrException;

/** time_how (RFC 1813 §2.6), the discriminant of set_atime and set_mtime. */
public enum TimeHow {
    DONT_CHANGE, SET_TO_SERVER_TIME, SET_TO_CLIENT_TIME;

    public int value() {
        return ordinal();
    }

    public static TimeHow of(int value) {
        if (value < 0 || value > 2) {
            throw new XdrException("unknown time_how " + value);
        }
        return values()[value];
    }
}
