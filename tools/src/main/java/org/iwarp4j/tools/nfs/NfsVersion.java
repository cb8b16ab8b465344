package org.iwarp4j.tools.nfs;

import java.util.Locale;

/**
 * The NFS version a client command speaks ({@code --vers}): NFSv3 (RFC 1813, after MOUNT), NFSv4.1
 * (RFC 8881), NFSv4.2 (RFC 7862), or {@link #HIGHEST}, what {@code mount -t nfs} does without a
 * version option: 4.2, then 4.1 if the server answers NFS4ERR_MINOR_VERS_MISMATCH, then 3 if it
 * does not serve NFS version 4 at all (PROG_MISMATCH or PROG_UNAVAIL).
 */
public enum NfsVersion {
    V3("3"),
    V4_1("4.1"),
    V4_2("4.2"),
    HIGHEST("highest");

    private final String text;

    NfsVersion(String text) {
        this.text = text;
    }

    /** {@code 3}, {@code 4.1}, {@code 4.2} (also {@code 4}, as 4.2 then 4.1); IllegalArgumentException otherwise. */
    public static NfsVersion parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "3" -> V3;
            case "4.1" -> V4_1;
            case "4.2" -> V4_2;
            case "4", "highest" -> HIGHEST;
            default -> throw new IllegalArgumentException("NFS version 3, 4.1 or 4.2 expected, not " + text);
        };
    }

    /** The version as the user writes it. */
    public String text() {
        return text;
    }

    public boolean isV4() {
        return this == V4_1 || this == V4_2;
    }
}
