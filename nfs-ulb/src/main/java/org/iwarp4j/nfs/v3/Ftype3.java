package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrException;

/** ftype3 (RFC 1813 §2.6). */
public enum Ftype3 {
    NF3REG(1), NF3DIR(2), NF3BLK(3), NF3CHR(4), NF3LNK(5), NF3SOCK(6), NF3FIFO(7);

    private final int value;

    Ftype3(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static Ftype3 of(int value) {
        if (value < 1 || value > 7) {
            throw new XdrException("unknown ftype3 " + value);
        }
        return values()[value - 1];
    }
}
