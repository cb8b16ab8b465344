package org.iwarp4j.nfs.binding;

import static org.iwarp4j.nfs.binding.DdpEligibleItem.argument;
import static org.iwarp4j.nfs.binding.DdpEligibleItem.argumentInArm;
import static org.iwarp4j.nfs.binding.DdpEligibleItem.result;
import static org.iwarp4j.nfs.binding.Nfs4OperationBinding.CURRENT;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusCount;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusPath;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Unpredictable;

/**
 * The Upper-Layer Binding for NFS version 4 (RFC 8267 §6): every COMPOUND operation of minor
 * versions 0, 1 and 2 with its DDP-eligible items (§6.1: WRITE4args data, the NF4LNK linkdata of
 * CREATE, READ4resok data, READLINK4resok linkdata — nothing else, READ_PLUS and WRITE_SAME
 * included), its result size (§6.2), and the COMPOUND-level rules: reply size of a whole COMPOUND,
 * short Reply chunk retry (§6.2.1), and when a GETATTR should travel alone (§6.2.1).
 *
 * <p>Result sizes are from RFC 7530, RFC 5661 (§18) and RFC 7862 (§15) XDR, in octets from the
 * status word, largest arm. Building blocks: stateid4 16, change_info4 20, verifier4 8, nfstime4
 * 12, nfs_fh4 4+128, sessionid4 16, channel_attrs4 32 (one rdma_ird). A returned bitmap4 is counted
 * as 3 words: a client bounds the bitmaps it gets by those it sent, and 3 words hold every
 * attribute number up to NFSv4.2's. Results with items no protocol limit bounds are
 * {@link Unpredictable}: those §6.2 lists, and the strings of an ACE's who, a clientaddr4, a
 * netloc4, an implementation id, GSS OIDs and SSV digests, and READ_PLUS segment lists.
 */
public final class Nfs4Binding {

    /** The COMPOUND procedure of program 100003 version 4 (RFC 7530 §16.2). */
    public static final int PROC_COMPOUND = 1;
    /** OP_GETATTR, the operation §6.2.1 singles out. */
    public static final int OP_GETATTR = 9;
    /** OP_ILLEGAL (RFC 7530 §16.38). */
    public static final int OP_ILLEGAL = 10044;

    private static final int S = 4;
    private static final int STATEID = 16;
    private static final int CHANGE_INFO = 20;
    private static final int VERIFIER = 8;
    private static final int NFSTIME = 12;
    private static final int BITMAP = 4 + 3 * 4;
    private static final int SESSIONID = 16;
    private static final int CHANNEL_ATTRS = 6 * 4 + 4 + 4;
    private static final int OPAQUE_LIMIT = 4 + NfsBindingConstants.NFS4_OPAQUE_LIMIT;
    /** LOCK4denied: offset, length, locktype, lock_owner4 (clientid, owner&lt;NFS4_OPAQUE_LIMIT&gt;). */
    private static final int LOCK_DENIED = 8 + 8 + 4 + 8 + OPAQUE_LIMIT;
    /** open_delegation4, largest arm (WRITE) without the ACE's who body: type, stateid, recall, space limit, ACE. */
    private static final int DELEGATION = 4 + STATEID + 4 + (4 + 8) + (3 * 4 + 4);
    /** write_response4: wr_callback_id&lt;1&gt;, wr_count, wr_committed, wr_writeverf. */
    private static final int WRITE_RESPONSE = (4 + STATEID) + 8 + 4 + VERIFIER;
    private static final List<String> WHO = List.of("open_delegation4 permissions.who (utf8str_mixed)");
    private static final List<String> SECINFO = List.of("secinfo4 list (sec_oid4 of RPCSEC_GSS entries)");
    private static final List<String> FATTR4 = List.of("attrlist4", "fattr4_acl", "fattr4_dacl", "fattr4_sacl",
            "fs_locations4", "fs_locations_info4", "loh_body", "fattr_layout_types", "fs_layout_types");

    /** Every operation of NFSv4.0, 4.1 and 4.2, by opcode. */
    public static final List<Nfs4OperationBinding> OPERATIONS = List.of(
            op(3, "ACCESS", 0, new Fixed(S + 4 + 4), false),
            op(4, "CLOSE", 0, new Fixed(S + STATEID), true),
            op(5, "COMMIT", 0, new Fixed(S + VERIFIER), false),
            // RPC-R-019: createtype4 as a whole is a union and never eligible; only the linkdata inside
            // its NF4LNK arm is, so the eligibility is declared per arm.
            op(6, "CREATE", 0, new Fixed(S + CHANGE_INFO + BITMAP), true,
                    argumentInArm("CREATE", "linkdata field of the NF4LNK arm (createtype4.linkdata)",
                            "createtype4 NF4LNK")),
            op(7, "DELEGPURGE", 0, new Fixed(S), true),
            op(8, "DELEGRETURN", 0, new Fixed(S), true),
            op(OP_GETATTR, "GETATTR", 0, new Unpredictable(S + BITMAP + 4, FATTR4), false),
            op(10, "GETFH", 0, new Fixed(S + 4 + NfsBindingConstants.NFS4_FHSIZE), false),
            op(11, "LINK", 0, new Fixed(S + CHANGE_INFO), true),
            op(12, "LOCK", 0, new Fixed(S + LOCK_DENIED), true),
            op(13, "LOCKT", 0, new Fixed(S + LOCK_DENIED), false),
            op(14, "LOCKU", 0, new Fixed(S + STATEID), true),
            op(15, "LOOKUP", 0, new Fixed(S), false),
            op(16, "LOOKUPP", 0, new Fixed(S), false),
            op(17, "NVERIFY", 0, new Fixed(S), false),
            op(18, "OPEN", 0, new Unpredictable(S + STATEID + CHANGE_INFO + 4 + BITMAP + DELEGATION, WHO), true),
            op(19, "OPENATTR", 0, new Fixed(S), true),
            op40(20, "OPEN_CONFIRM", new Fixed(S + STATEID), true),
            op(21, "OPEN_DOWNGRADE", 0, new Fixed(S + STATEID), true),
            op(22, "PUTFH", 0, new Fixed(S), false),
            op(23, "PUTPUBFH", 0, new Fixed(S), false),
            op(24, "PUTROOTFH", 0, new Fixed(S), false),
            op(25, "READ", 0, new PlusCount(S + 4 + 4, "count", 1, Long.MAX_VALUE, S), false,
                    result("READ", "opaque data field in the READ4resok structure")),
            // maxcount: "the maximum size of the READDIR4resok", cookie verifier and XDR overhead included.
            op(26, "READDIR", 0, new PlusCount(S, "maxcount", 1, Long.MAX_VALUE, S), false),
            op(27, "READLINK", 0, new PlusPath(S + 4, PlusPath.NO_PROTOCOL_LIMIT, S), false,
                    result("READLINK", "linkdata field in the READLINK4resok structure")),
            op(28, "REMOVE", 0, new Fixed(S + CHANGE_INFO), true),
            op(29, "RENAME", 0, new Fixed(S + 2 * CHANGE_INFO), true),
            op40(30, "RENEW", new Fixed(S), false),
            op(31, "RESTOREFH", 0, new Fixed(S), false),
            op(32, "SAVEFH", 0, new Fixed(S), false),
            op(33, "SECINFO", 0, new Unpredictable(S + 4, SECINFO), false),
            op(34, "SETATTR", 0, new Fixed(S + BITMAP), true),
            op40(35, "SETCLIENTID", new Unpredictable(S + 8 + VERIFIER,
                    List.of("clientaddr4 r_netid and r_addr of the NFS4ERR_CLID_INUSE arm")), true),
            op40(36, "SETCLIENTID_CONFIRM", new Fixed(S), true),
            op(37, "VERIFY", 0, new Fixed(S), false),
            op(38, "WRITE", 0, new Fixed(S + 4 + 4 + VERIFIER), true,
                    argument("WRITE", "opaque data field in the WRITE4args structure")),
            op40(39, "RELEASE_LOCKOWNER", new Fixed(S), true),
            op(40, "BACKCHANNEL_CTL", 1, new Fixed(S), true),
            op(41, "BIND_CONN_TO_SESSION", 1, new Fixed(S + SESSIONID + 4 + 4), true),
            // clientid, sequenceid, flags, state_protect4_r (SP4_MACH_CRED: two bitmaps), server_owner4,
            // server_scope, impl_id<1> (domain and name bodies unbounded, date).
            op(42, "EXCHANGE_ID", 1, new Unpredictable(S + 8 + 4 + 4 + (4 + 2 * BITMAP) + (8 + OPAQUE_LIMIT)
                    + OPAQUE_LIMIT + (4 + 4 + 4 + NFSTIME),
                    List.of("eir_server_impl_id nii_domain and nii_name", "SP4_SSV arm (OIDs, handles)")), true),
            op(43, "CREATE_SESSION", 1, new Fixed(S + SESSIONID + 4 + 4 + 2 * CHANNEL_ATTRS), true),
            op(44, "DESTROY_SESSION", 1, new Fixed(S), true),
            op(45, "FREE_STATEID", 1, new Fixed(S), true),
            op(46, "GET_DIR_DELEGATION", 1, new Fixed(S + 4 + VERIFIER + STATEID + 3 * BITMAP), true),
            op(47, "GETDEVICEINFO", 1, new Unpredictable(S + 4 + 4 + BITMAP, List.of("da_addr_body")), false),
            op(48, "GETDEVICELIST", 1, new PlusCount(S + 8 + VERIFIER + 4 + 4, "gdla_maxdevices", 16,
                    Long.MAX_VALUE, S), false),
            op(49, "LAYOUTCOMMIT", 1, new Fixed(S + 4 + 8), true),
            op(50, "LAYOUTGET", 1, new Unpredictable(S + 4 + STATEID + 4 + (8 + 8 + 4 + 4 + 4),
                    List.of("loc_body", "logr_layout (number of layouts)")), true),
            op(51, "LAYOUTRETURN", 1, new Fixed(S + 4 + STATEID), true),
            op(52, "SECINFO_NO_NAME", 1, new Unpredictable(S + 4, SECINFO), false),
            op(53, "SEQUENCE", 1, new Fixed(S + SESSIONID + 5 * 4), false),
            op(54, "SET_SSV", 1, new Unpredictable(S + 4, List.of("ssr_digest")), true),
            op(55, "TEST_STATEID", 1, new PlusCount(S + 4, "ts_stateids (number of stateids)", 4,
                    Long.MAX_VALUE, S), false),
            op(56, "WANT_DELEGATION", 1, new Unpredictable(S + DELEGATION, WHO), true),
            op(57, "DESTROY_CLIENTID", 1, new Fixed(S), true),
            op(58, "RECLAIM_COMPLETE", 1, new Fixed(S), true),
            op(59, "ALLOCATE", 2, new Fixed(S), true),
            op(60, "COPY", 2, new Fixed(S + WRITE_RESPONSE + 4 + 4), true),
            op(61, "COPY_NOTIFY", 2, new Unpredictable(S + NFSTIME + STATEID + 4,
                    List.of("cnr_source_server (netloc4 list)")), true),
            op(62, "DEALLOCATE", 2, new Fixed(S), true),
            op(63, "IO_ADVISE", 2, new Fixed(S + BITMAP), false),
            op(64, "LAYOUTERROR", 2, new Fixed(S), false),
            op(65, "LAYOUTSTATS", 2, new Fixed(S), false),
            op(66, "OFFLOAD_CANCEL", 2, new Fixed(S), true),
            op(67, "OFFLOAD_STATUS", 2, new Fixed(S + 8 + 4 + 4), false),
            // Not DDP-eligible: RFC 8267 §6.1 names READ only.
            op(68, "READ_PLUS", 2, new Unpredictable(S + 4 + 4,
                    List.of("rpr_contents (data and hole segments)")), false),
            op(69, "SEEK", 2, new Fixed(S + 4 + 8), false),
            op(70, "WRITE_SAME", 2, new Fixed(S + WRITE_RESPONSE), true),
            op(71, "CLONE", 2, new Fixed(S), true),
            op(OP_ILLEGAL, "ILLEGAL", 0, new Fixed(S), false));

    private Nfs4Binding() {
    }

    private static Nfs4OperationBinding op(int opcode, String name, int since, ReplySizeEstimate size,
                                           boolean nonIdempotent, DdpEligibleItem... items) {
        return new Nfs4OperationBinding(opcode, name, since, CURRENT, List.of(items), size, nonIdempotent);
    }

    private static Nfs4OperationBinding op40(int opcode, String name, ReplySizeEstimate size, boolean nonIdempotent) {
        return new Nfs4OperationBinding(opcode, name, 0, 0, List.of(), size, nonIdempotent);
    }

    /** The row of an operation defined in that minor version. */
    public static Optional<Nfs4OperationBinding> operation(int opcode, int minorVersion) {
        checkMinorVersion(minorVersion);
        return OPERATIONS.stream().filter(o -> o.opcode() == opcode && o.definedIn(minorVersion)).findFirst();
    }

    /** The row of an operation in any minor version. */
    public static Optional<Nfs4OperationBinding> operation(int opcode) {
        return OPERATIONS.stream().filter(o -> o.opcode() == opcode).findFirst();
    }

    /** The operations of one minor version, by opcode. */
    public static List<Nfs4OperationBinding> operations(int minorVersion) {
        checkMinorVersion(minorVersion);
        return OPERATIONS.stream().filter(o -> o.definedIn(minorVersion)).toList();
    }

    /**
     * Whether the operation has a DDP-eligible item in that direction (§6.1). Unknown operations
     * have none: a Responder answers a reduced one with ERR_CHUNK (RFC 8166 §6.1).
     */
    public static boolean isDdpEligible(int opcode, DdpEligibleItem.Direction direction) {
        return operation(opcode).map(o -> o.ddpEligible().stream().anyMatch(i -> i.direction() == direction))
                .orElse(false);
    }

    /**
     * The largest COMPOUND4res for these operations (RFC 8267 §3, §6.2): status, the echoed tag,
     * the result array's count, then per operation its opcode word and largest result. In
     * NFSv4.1 and later the session's ca_maxresponsesize bounds the whole reply (§6.2.2), so the
     * estimate never exceeds it.
     *
     * @throws IllegalArgumentException if an operation is not defined in the minor version
     */
    public static long compoundMaxReplyOctets(int minorVersion, int tagLength, List<OperationCall> operations,
                                              ReplySizeLimits limits) {
        long total = S + 4 + ReplySizeEstimate.roundUp(tagLength) + 4;
        for (OperationCall call : operations) {
            Nfs4OperationBinding op = require(call.opcode(), minorVersion);
            total += 4 + op.replySize().maxOctets(call.countArgument(), limits);
        }
        if (minorVersion >= 1 && limits.sessionMaxResponseSize().isPresent()) {
            total = Math.min(total, limits.sessionMaxResponseSize().getAsLong());
        }
        return total;
    }

    /**
     * Whether a client may use short Reply chunk retry for this COMPOUND (§3.1, §6.2.1): only an
     * NFSv4.0 COMPOUND containing a GETATTR. (NFSv4.1 and later have ca_maxresponsesize instead.)
     */
    public static boolean shortReplyChunkRetryAllowed(int minorVersion, List<Integer> opcodes) {
        checkMinorVersion(minorVersion);
        return minorVersion == 0 && opcodes.contains(OP_GETATTR);
    }

    /**
     * Whether this COMPOUND combines a GETATTR of unpredictable-size attributes with a
     * non-idempotent operation, which §6.2.1 says should be avoided by sending such a GETATTR in a
     * COMPOUND by itself.
     *
     * @param getattrWantsUnpredictableAttributes whether the GETATTR asks for attributes of
     *        unpredictable size (ACLs, fs_locations, ...)
     */
    public static boolean getattrShouldBeSentAlone(List<Integer> opcodes, boolean getattrWantsUnpredictableAttributes) {
        if (!getattrWantsUnpredictableAttributes || !opcodes.contains(OP_GETATTR)) {
            return false;
        }
        return opcodes.stream().map(Nfs4Binding::operation)
                .anyMatch(o -> o.map(Nfs4OperationBinding::nonIdempotent).orElse(false));
    }

    /** The READ operations (§6.4.1) of a COMPOUND, as indexes into its operation list. */
    public static List<Integer> readOperationIndexes(List<Integer> opcodes) {
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < opcodes.size(); i++) {
            if (operation(opcodes.get(i)).map(Nfs4OperationBinding::isReadOperation).orElse(false)) {
                indexes.add(i);
            }
        }
        return Collections.unmodifiableList(indexes);
    }

    private static Nfs4OperationBinding require(int opcode, int minorVersion) {
        return operation(opcode, minorVersion).orElseThrow(() -> new IllegalArgumentException(
                "operation " + opcode + " is not defined in NFSv4." + minorVersion));
    }

    private static void checkMinorVersion(int minorVersion) {
        if (minorVersion < 0 || minorVersion > CURRENT) {
            throw new IllegalArgumentException("RFC 8267 binds NFSv4.0 to 4.2, not 4." + minorVersion);
        }
    }

    /**
     * One operation of a COMPOUND for reply size estimation.
     *
     * @param opcode the operation
     * @param countArgument its count argument (READ count, READDIR maxcount), 0 if it has none
     */
    public record OperationCall(int opcode, long countArgument) {
        /** An operation without a count argument. */
        public static OperationCall of(int opcode) {
            return new OperationCall(opcode, 0);
        }
    }
}
