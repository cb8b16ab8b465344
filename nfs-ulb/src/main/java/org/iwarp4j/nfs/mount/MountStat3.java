package org.iwarp4j.nfs.mount;

import org.iwarp4j.oncrpc.XdrException;

/** mountstat3 (RFC 1813 Appendix I §5.1.2). */
public enum MountStat3 {
    MNT3_OK(0),
    MNT3ERR_PERM(1),
    MNT3ERR_NOENT(2),
    MNT3ERR_IO(5),
    MNT3ERR_ACCES(13),
    MNT3ERR_NOTDIR(20),
    MNT3ERR_INVAL(22),
    MNT3ERR_NAMETOOLONG(63),
    MNT3ERR_NOTSUPP(10004),
    MNT3ERR_SERVERFAULT(10006);

    private final int value;

    MountStat3(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static MountStat3 of(int value) {
        for (MountStat3 s : values()) {
            if (s.value == value) {
                return s;
            }
        }
        throw new XdrException("unknown mountstat3 " + value);
    }
}
