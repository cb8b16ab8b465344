package org.iwarp4j.oncrpc;

/** accept_stat of an accepted reply (RFC 5531 §9). */
public enum AcceptStat {
    /** RPC executed successfully. */
    SUCCESS(0),
    /** Remote has not exported the program. */
    PROG_UNAVAIL(1),
    /** Remote cannot support the version number; the reply carries the lowest and highest supported. */
    PROG_MISMATCH(2),
    /** Program cannot support the procedure. */
    PROC_UNAVAIL(3),
    /** Procedure cannot decode the parameters. */
    GARBAGE_ARGS(4),
    /** Errors such as memory allocation failure. */
    SYSTEM_ERR(5);

    private final int code;

    AcceptStat(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** The constant for a wire value, or null if RFC 5531 defines none. */
    public static AcceptStat fromCode(int code) {
        AcceptStat[] values = values();
        return code >= 0 && code < values.length ? values[code] : null;
    }
}
