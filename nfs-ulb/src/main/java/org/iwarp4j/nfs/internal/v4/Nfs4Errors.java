package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.io.IOException;
import org.iwarp4j.nfs.internal.NfsErrors;
import org.iwarp4j.nfs.internal.NfsException;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.oncrpc.XdrException;

/**
 * nfsstat4 for a failure. The NFSv3 machinery the v4 server reuses reports nfsstat3; RFC 8881
 * §15.1 kept the numbers of every status the two versions share (ACCESS is NFS3ERR_ACCES, DELAY
 * is NFS3ERR_JUKEBOX), so those carry over unchanged; NOT_SYNC, which NFSv4 lacks, becomes INVAL.
 */
public final class Nfs4Errors {

    private Nfs4Errors() {
    }

    public static int of(Nfs3Status s) {
        return switch (s) {
            case NFS3ERR_NOT_SYNC -> NFS4ERR_INVAL;
            default -> s.value();
        };
    }

    public static int statusOf(Throwable t) {
        if (t instanceof Nfs4Exception e) {
            return e.status();
        }
        if (t instanceof XdrException) {
            return NFS4ERR_BADXDR;
        }
        if (t instanceof NfsException e) {
            return of(e.status());
        }
        if (t instanceof IOException e) {
            return of(NfsErrors.statusOf(e));
        }
        return of(NfsErrors.statusOf(t));
    }
}
