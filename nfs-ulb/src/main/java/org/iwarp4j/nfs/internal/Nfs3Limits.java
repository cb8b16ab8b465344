package org.iwarp4j.nfs.internal;

/**
 * The sizes the server announces in FSINFO (RFC 1813 §3.3.19) and enforces.
 *
 * @param maxRead rtmax: the largest READ
 * @param maxWrite wtmax: the largest WRITE; longer WRITE data is GARBAGE_ARGS
 * @param preferredReaddir dtpref
 */
public record Nfs3Limits(int maxRead, int maxWrite, int preferredReaddir) {

    /** Largest name component, as Linux's NAME_MAX. */
    public static final int NAME_MAX = 255;

    public Nfs3Limits {
        if (maxRead < 4096 || maxWrite < 4096 || preferredReaddir < 1024) {
            throw new IllegalArgumentException("limits too small: " + maxRead + "/" + maxWrite + "/" + preferredReaddir);
        }
    }

    public static Nfs3Limits defaults() {
        return new Nfs3Limits(1 << 20, 1 << 20, 64 * 1024);
    }
}
