package org.iwarp4j.nfs.binding;

import java.util.List;
import java.util.Optional;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Unpredictable;

/**
 * The binding of NFSv4 callbacks (RFC 8267 §6.5): no callback operation of any minor version has a
 * DDP-eligible item. NFSv4.0 callbacks usually travel on a separate TCP connection the client
 * advertises in SETCLIENTID (§6.5.1). NFSv4.1+ callbacks may share the forward channel's
 * RPC-over-RDMA connection and then MUST follow RFC 8167 (§6.5.2); the backchannel's
 * ca_maxresponsesize bounds every callback reply, and unless the client's backchannel
 * ca_maxrequestsize exceeds the inline threshold the server sends callbacks as Short messages only.
 */
public final class Nfs4CallbackBinding {

    /** CREATE_SESSION4_FLAG_CONN_BACK_CHAN (RFC 5661 §18.36): use this connection for the backchannel. */
    public static final int CREATE_SESSION4_FLAG_CONN_BACK_CHAN = 0x00000002;

    private static final int S = 4;

    /** Callback operations of minor versions 0 (CB_GETATTR, CB_RECALL), 1 and 2, by opcode. */
    public static final List<Nfs4OperationBinding> OPERATIONS = List.of(
            cb(3, "CB_GETATTR", 0, new Unpredictable(S + 4 + 3 * 4 + 4, List.of("attrlist4"))),
            cb(4, "CB_RECALL", 0, new Fixed(S)),
            cb(5, "CB_LAYOUTRECALL", 1, new Fixed(S)),
            cb(6, "CB_NOTIFY", 1, new Fixed(S)),
            cb(7, "CB_PUSH_DELEG", 1, new Fixed(S)),
            cb(8, "CB_RECALL_ANY", 1, new Fixed(S)),
            cb(9, "CB_RECALLABLE_OBJ_AVAIL", 1, new Fixed(S)),
            cb(10, "CB_RECALL_SLOT", 1, new Fixed(S)),
            cb(11, "CB_SEQUENCE", 1, new Fixed(S + 16 + 4 * 4)),
            cb(12, "CB_WANTS_CANCELLED", 1, new Fixed(S)),
            cb(13, "CB_NOTIFY_LOCK", 1, new Fixed(S)),
            cb(14, "CB_NOTIFY_DEVICEID", 1, new Fixed(S)),
            cb(15, "CB_OFFLOAD", 2, new Fixed(S)),
            cb(10044, "CB_ILLEGAL", 0, new Fixed(S)));

    /** Where callbacks of a minor version travel. */
    public enum CallbackTransport {
        /** NFSv4.0: a separate connection, typically TCP, to the netid and address of SETCLIENTID (§6.5.1). */
        SEPARATE_CONNECTION_FROM_SETCLIENTID,
        /** NFSv4.1+: the session's connection, on RPC-over-RDMA as RFC 8167 specifies (§6.5.2). */
        SESSION_BACKCHANNEL_RFC_8167
    }

    private Nfs4CallbackBinding() {
    }

    private static Nfs4OperationBinding cb(int opcode, String name, int since, ReplySizeEstimate size) {
        return new Nfs4OperationBinding(opcode, name, since, Nfs4OperationBinding.CURRENT, List.of(), size, false);
    }

    /** The row of a callback operation defined in that minor version. */
    public static Optional<Nfs4OperationBinding> operation(int opcode, int minorVersion) {
        return OPERATIONS.stream().filter(o -> o.opcode() == opcode && o.definedIn(minorVersion)).findFirst();
    }

    /** Always false: callbacks have no DDP-eligible items in any minor version (§6.5.1, §6.5.2). */
    public static boolean isDdpEligible(int opcode, DdpEligibleItem.Direction direction) {
        return false;
    }

    /** Where the callbacks of a minor version travel. */
    public static CallbackTransport callbackTransport(int minorVersion) {
        if (minorVersion < 0 || minorVersion > Nfs4OperationBinding.CURRENT) {
            throw new IllegalArgumentException("RFC 8267 binds NFSv4.0 to 4.2, not 4." + minorVersion);
        }
        return minorVersion == 0 ? CallbackTransport.SEPARATE_CONNECTION_FROM_SETCLIENTID
                : CallbackTransport.SESSION_BACKCHANNEL_RFC_8167;
    }

    /**
     * Whether a server may send a callback as a Long Call (§6.5.2): only when the client reported a
     * backchannel ca_maxrequestsize larger than the connection's inline threshold; otherwise only
     * Short messages (the call fits inline).
     */
    public static boolean serverMayUseLongCalls(long backChannelMaxRequestSize, int inlineThreshold) {
        return backChannelMaxRequestSize > inlineThreshold;
    }

    /**
     * Whether a callback Call of this many octets (transport header and Payload stream together)
     * may be sent: Long Calls only under {@link #serverMayUseLongCalls}, never beyond the
     * backchannel's ca_maxrequestsize.
     */
    public static boolean callbackFits(long callOctets, long backChannelMaxRequestSize, int inlineThreshold) {
        if (callOctets > backChannelMaxRequestSize) {
            return false;
        }
        return callOctets <= inlineThreshold || serverMayUseLongCalls(backChannelMaxRequestSize, inlineThreshold);
    }

    /** The largest callback reply a server must be ready for: the backchannel's ca_maxresponsesize (§6.5.2). */
    public static long callbackReplyBound(long backChannelMaxResponseSize) {
        return backChannelMaxResponseSize;
    }

    /**
     * The CREATE_SESSION flags a server returns for an RPC-over-RDMA connection: it keeps
     * CREATE_SESSION4_FLAG_CONN_BACK_CHAN only if it implements RFC 8167, which §6.5.2 makes a MUST
     * for a backchannel on such a connection.
     */
    public static int createSessionFlags(int requestedFlags, boolean rfc8167Implemented) {
        return rfc8167Implemented ? requestedFlags : requestedFlags & ~CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
    }
}
