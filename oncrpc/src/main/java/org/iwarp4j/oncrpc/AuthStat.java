package org.iwarp4j.oncrpc;

/** auth_stat: why a call was denied with AUTH_ERROR (RFC 5531 §9). */
public enum AuthStat {
    /** Success. */
    AUTH_OK(0),
    /** Bad credential (seal broken). */
    AUTH_BADCRED(1),
    /** Client must begin a new session. */
    AUTH_REJECTEDCRED(2),
    /** Bad verifier (seal broken). */
    AUTH_BADVERF(3),
    /** Verifier expired or replayed. */
    AUTH_REJECTEDVERF(4),
    /** Rejected for security reasons. */
    AUTH_TOOWEAK(5),
    /** Bogus response verifier (client side). */
    AUTH_INVALIDRESP(6),
    /** Reason unknown. */
    AUTH_FAILED(7),
    /** Kerberos generic error. */
    AUTH_KERB_GENERIC(8),
    /** Time of credential expired. */
    AUTH_TIMEEXPIRE(9),
    /** Problem with ticket file. */
    AUTH_TKT_FILE(10),
    /** Can't decode authenticator. */
    AUTH_DECODE(11),
    /** Wrong net address in ticket. */
    AUTH_NET_ADDR(12),
    /** RPCSEC_GSS: no credentials for user. */
    RPCSEC_GSS_CREDPROBLEM(13),
    /** RPCSEC_GSS: problem with context. */
    RPCSEC_GSS_CTXPROBLEM(14);

    private final int code;

    AuthStat(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** The constant for a wire value, or null if RFC 5531 defines none. */
    public static AuthStat fromCode(int code) {
        AuthStat[] values = values();
        return code >= 0 && code < values.length ? values[code] : null;
    }
}
