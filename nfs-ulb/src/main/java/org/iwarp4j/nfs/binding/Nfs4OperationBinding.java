package org.iwarp4j.nfs.binding;

import java.util.List;
import java.util.Objects;

/**
 * One row of the NFSv4 COMPOUND binding (RFC 8267 §6): an operation, the minor versions that
 * define it, its DDP-eligible items (§6.1) and its result size (§6.2).
 *
 * @param opcode the nfs_opnum4 value
 * @param name the operation's name ("READ", "CREATE_SESSION")
 * @param firstMinorVersion the first minor version defining it
 * @param lastMinorVersion the last minor version defining it (0 for the operations NFSv4.1 made
 *                         MUST NOT: OPEN_CONFIRM, RENEW, SETCLIENTID, SETCLIENTID_CONFIRM,
 *                         RELEASE_LOCKOWNER), else {@link #CURRENT}
 * @param ddpEligible the operation's DDP-eligible items
 * @param replySize the size of the operation's result (nfs_resop4 arm, from the status word)
 * @param nonIdempotent whether the operation changes server state, so that a GETATTR of
 *                      unpredictable size should not share its COMPOUND (§6.2.1)
 */
public record Nfs4OperationBinding(int opcode, String name, int firstMinorVersion, int lastMinorVersion,
                                   List<DdpEligibleItem> ddpEligible, ReplySizeEstimate replySize,
                                   boolean nonIdempotent) {

    /** The newest minor version RFC 8267 binds. */
    public static final int CURRENT = 2;

    public Nfs4OperationBinding {
        Objects.requireNonNull(name, "name");
        ddpEligible = List.copyOf(ddpEligible);
        Objects.requireNonNull(replySize, "replySize");
        if (firstMinorVersion < 0 || lastMinorVersion < firstMinorVersion) {
            throw new IllegalArgumentException("minor versions " + firstMinorVersion + ".." + lastMinorVersion);
        }
    }

    /** Whether the operation exists in that minor version. */
    public boolean definedIn(int minorVersion) {
        return minorVersion >= firstMinorVersion && minorVersion <= lastMinorVersion;
    }

    /**
     * Whether this is a "READ operation" in the sense of RFC 8267 §6.4.1: it has a DDP-eligible
     * result, so it consumes the next Write chunk of the Write list.
     */
    public boolean isReadOperation() {
        return ddpEligible.stream().anyMatch(i -> i.direction() == DdpEligibleItem.Direction.RESULT);
    }

    /** Whether the operation's arguments hold a DDP-eligible item (in some union arm). */
    public boolean hasEligibleArgument() {
        return ddpEligible.stream().anyMatch(i -> i.direction() == DdpEligibleItem.Direction.ARGUMENT);
    }
}
