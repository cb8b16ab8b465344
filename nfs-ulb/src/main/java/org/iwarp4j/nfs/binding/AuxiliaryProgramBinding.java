package org.iwarp4j.nfs.binding;

import java.util.List;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Unpredictable;

/**
 * The Upper-Layer Bindings of the NFSv2/v3 auxiliary programs (RFC 8267 §5). None of them has a
 * DDP-eligible item. MOUNT, NLM and NSM run over TCP, which a server offering NFS/RDMA MUST provide
 * (§5.1), so their procedures need no reply size rows. NFSACL shares the NFS connection, RDMA
 * included (§5.2): its GETACL reply holds an ACL of no protocol-bounded size, so GETACL alone may
 * use short Reply chunk retry.
 */
public final class AuxiliaryProgramBinding {

    private static final int STATUS = 4;
    private static final int POST_OP_ATTR = 4 + 84;

    /** MOUNT versions 2 and 3 (RFC 8267 §5, §5.1). */
    public static final ProgramBinding MOUNT = new ProgramBinding("MOUNT", NfsBindingConstants.MOUNT_PROGRAM,
            List.of(2, 3), TransportRule.TCP, List.of());
    /** NLM versions 1, 3 and 4 (RFC 8267 §5, §5.1). */
    public static final ProgramBinding NLM = new ProgramBinding("NLM", NfsBindingConstants.NLM_PROGRAM,
            List.of(1, 3, 4), TransportRule.TCP, List.of());
    /** NSM version 1 (RFC 8267 §5, §5.1). */
    public static final ProgramBinding NSM = new ProgramBinding("NSM", NfsBindingConstants.NSM_PROGRAM,
            List.of(1), TransportRule.TCP, List.of());

    /**
     * NFSACL (RFC 8267 §5.2). The RFC names version 1; deployed NFSACL (Linux, Solaris) is version 2
     * beside NFSv2 and version 3 beside NFSv3, so all three are covered. Rows: NULL, GETACL, SETACL,
     * and version 2's GETATTR and ACCESS. GETACL: status, post_op_attr, mask, then the access and
     * default ACLs — unbounded (§5.2), so the client's own ACL limit applies.
     */
    public static final ProgramBinding NFSACL = new ProgramBinding("NFSACL", NfsBindingConstants.NFSACL_PROGRAM,
            List.of(1, 2, 3), TransportRule.SAME_CONNECTION_AS_NFS, List.of(
            ProcedureBinding.of(0, "NULL", new Fixed(0)),
            new ProcedureBinding(1, "GETACL", List.of(),
                    new Unpredictable(STATUS + POST_OP_ATTR + 4, List.of("access ACL", "default ACL")), true),
            ProcedureBinding.of(2, "SETACL", new Fixed(STATUS + POST_OP_ATTR)),
            ProcedureBinding.of(3, "GETATTR", new Fixed(STATUS + 68)),
            ProcedureBinding.of(4, "ACCESS", new Fixed(STATUS + 68 + 4))));

    /** All four, in the order of RFC 8267 §5. */
    public static final List<ProgramBinding> ALL = List.of(MOUNT, NLM, NSM, NFSACL);

    private AuxiliaryProgramBinding() {
    }
}
