package org.iwarp4j.nfs;

import java.util.Objects;
import org.iwarp4j.nfs.v3.Nfs3Status;

/** An NFS procedure answered with an error status (RFC 1813 §2.6), e.g. NFS3ERR_NOENT for a missing name. */
public class NfsStatusException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Nfs3Status status;

    public NfsStatusException(Nfs3Status status, String operation) {
        super(operation + ": " + status);
        this.status = Objects.requireNonNull(status, "status");
    }

    /** For subclasses with their own message (NFSv4 errors, {@link Nfs4StatusException}). */
    protected NfsStatusException(Nfs3Status status, String message, boolean ownMessage) {
        super(message);
        this.status = Objects.requireNonNull(status, "status");
    }

    /** The status the server returned. */
    public Nfs3Status status() {
        return status;
    }
}
