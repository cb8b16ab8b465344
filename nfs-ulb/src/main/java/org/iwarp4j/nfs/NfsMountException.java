package org.iwarp4j.nfs;

import java.util.Objects;
import org.iwarp4j.nfs.mount.MountStat3;

/** MOUNT refused an export (RFC 1813 Appendix I, mountstat3), e.g. MNT3ERR_NOENT for an unknown dirpath. */
public class NfsMountException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient MountStat3 status;

    public NfsMountException(MountStat3 status, String dirpath) {
        super("MNT " + dirpath + ": " + status);
        this.status = Objects.requireNonNull(status, "status");
    }

    public MountStat3 status() {
        return status;
    }
}
