package org.iwarp4j.ddp;

/**
 * The outcome of validating one tagged access against the {@link StagTable} (RFC 5041 §7.1, the
 * five checks for a non-zero-length tagged segment, in the order they are made here).
 *
 * <p>The §7.2 number of each failure is {@link #ddpError()}. RDMAP reports failures of an RDMA Read
 * Request's Data Source STag with its own codes (RFC 5040 §7.2, Remote Protection Error), which
 * is why the access-rights failure is kept apart from {@link #INVALID_STAG} here.
 */
public enum StagCheck {
    /** The access is allowed (or has length zero, which is never checked: §5.2, DDP-R-031). */
    VALID(null),
    /** Check 1: no buffer is registered under this STag (unknown index, stale key, deregistered) or it was invalidated. */
    INVALID_STAG(DdpError.INVALID_STAG),
    /** Check 1: the buffer belongs to another protection domain, or is limited to another stream (§8.2). */
    NOT_ASSOCIATED(DdpError.STAG_NOT_ASSOCIATED),
    /**
     * Check 2: the buffer does not allow this access (no such right). RFC 5041 has no code for it;
     * reported as 0x1/0x00 Invalid STag like Linux siw ({@code siw_tagged_error()}: "RFC 5041 (DDP)
     * lacks an ecode for insufficient access permissions. 'Invalid STag' seem to be the closest
     * match"). RDMAP uses its own code 0x02 for a Read Request.
     */
    ACCESS_DENIED(DdpError.INVALID_STAG),
    /**
     * Check 5: the unsigned 64-bit sum TO + length wraps. Made before the range checks 3 and 4,
     * because a wrapped sum would make check 4 meaningless; an access that wraps can never be in
     * range, since no buffer extends past 2^64 - 1.
     */
    TO_WRAP(DdpError.TO_WRAP),
    /** Checks 3 and 4: TO is below the buffer's base, or TO + length is past its end. */
    BASE_OR_BOUNDS(DdpError.BASE_OR_BOUNDS_VIOLATION);

    private final DdpError ddpError;

    StagCheck(DdpError ddpError) {
        this.ddpError = ddpError;
    }

    /** The RFC 5041 §7.2 error for this failure; {@code null} for {@link #VALID}. */
    public DdpError ddpError() {
        return ddpError;
    }
}
