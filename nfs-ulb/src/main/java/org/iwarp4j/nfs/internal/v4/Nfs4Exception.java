package org.iwarp4j.nfs.internal.v4;

/** An operation's failure with its nfsstat4 (RFC 8881 §15); the COMPOUND stops there. */
public final class Nfs4Exception extends RuntimeException {

    private final int status;

    public Nfs4Exception(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
