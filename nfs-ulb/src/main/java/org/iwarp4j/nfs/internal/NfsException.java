package org.iwarp4j.nfs.internal;

import java.util.Objects;
import org.iwarp4j.nfs.v3.Nfs3Status;

/** A failed NFS operation with the nfsstat3 the client gets; thrown inside the server only. */
public final class NfsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Nfs3Status status;

    public NfsException(Nfs3Status status, String message) {
        super(message, null, false, false);
        this.status = Objects.requireNonNull(status, "status");
    }

    public NfsException(Nfs3Status status, String message, Throwable cause) {
        super(message, cause, false, false);
        this.status = Objects.requireNonNull(status, "status");
    }

    public Nfs3Status status() {
        return status;
    }
}
