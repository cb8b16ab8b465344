package org.iwarp4j.nfs.binding;

import static org.iwarp4j.nfs.binding.DdpEligibleItem.argument;
import static org.iwarp4j.nfs.binding.DdpEligibleItem.result;
import static org.iwarp4j.nfs.binding.ProcedureBinding.of;

import java.util.List;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusCount;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusPath;

/**
 * The Upper-Layer Binding for NFS versions 2 and 3 (RFC 8267 §4): exactly four DDP-eligible items
 * per version (WRITE data and SYMLINK pathname as arguments, READ data and READLINK pathname as
 * results), every procedure's largest result from the XDR of RFC 1094 and RFC 1813, and no short
 * Reply chunk retry for any procedure (§4.1).
 *
 * <p>Sizes are octets of the result from the status word on. The XDR pieces they are made of:
 * NFSv2 fattr 68, fhandle 32; NFSv3 fattr3 84, post_op_attr 4+84, pre_op_attr 4+24,
 * wcc_data 28+88, nfs_fh3 4+64, post_op_fh3 4+68.
 */
public final class LegacyNfsBinding {

    private static final int STATUS = 4;

    private static final int FATTR2 = 68;
    private static final int FHANDLE2 = NfsBindingConstants.NFS2_FHSIZE;
    private static final int ATTRSTAT2 = STATUS + FATTR2;
    private static final int DIROPRES2 = STATUS + FHANDLE2 + FATTR2;

    private static final int POST_OP_ATTR = 4 + 84;
    private static final int WCC_DATA = (4 + 24) + POST_OP_ATTR;
    private static final int NFS_FH3 = 4 + NfsBindingConstants.NFS3_FHSIZE;
    private static final int POST_OP_FH3 = 4 + NFS_FH3;
    private static final int VERF3 = 8;
    /** CREATE, MKDIR, SYMLINK, MKNOD: obj, obj_attributes, dir_wcc (the failure arm is dir_wcc). */
    private static final int DIROP3 = STATUS + POST_OP_FH3 + POST_OP_ATTR + WCC_DATA;

    /** NFS version 2 (RFC 1094 §2.2), program 100003 version 2. */
    public static final ProgramBinding NFS_V2 = new ProgramBinding("NFS", NfsBindingConstants.NFS_PROGRAM,
            List.of(2), TransportRule.RPC_OVER_RDMA, List.of(
            of(0, "NULL", new Fixed(0)),
            of(1, "GETATTR", new Fixed(ATTRSTAT2)),
            of(2, "SETATTR", new Fixed(ATTRSTAT2)),
            of(3, "ROOT", new Fixed(0)),
            of(4, "LOOKUP", new Fixed(DIROPRES2)),
            of(5, "READLINK", new PlusPath(STATUS + 4, NfsBindingConstants.NFS2_MAXPATHLEN, STATUS),
                    result("READLINK", "pathname result (readlinkres.data)")),
            of(6, "READ", new PlusCount(STATUS + FATTR2 + 4, "count", 1, NfsBindingConstants.NFS2_MAXDATA, STATUS),
                    result("READ", "opaque file data result (readokres.data)")),
            of(7, "WRITECACHE", new Fixed(0)),
            of(8, "WRITE", new Fixed(ATTRSTAT2),
                    argument("WRITE", "opaque file data argument (writeargs.data)")),
            of(9, "CREATE", new Fixed(DIROPRES2)),
            of(10, "REMOVE", new Fixed(STATUS)),
            of(11, "RENAME", new Fixed(STATUS)),
            of(12, "LINK", new Fixed(STATUS)),
            of(13, "SYMLINK", new Fixed(STATUS),
                    argument("SYMLINK", "pathname argument (symlinkargs.to)")),
            of(14, "MKDIR", new Fixed(DIROPRES2)),
            of(15, "RMDIR", new Fixed(STATUS)),
            // count bounds the entries and the closing words; the status word comes on top.
            of(16, "READDIR", new PlusCount(STATUS, "count", 1, Long.MAX_VALUE, STATUS)),
            of(17, "STATFS", new Fixed(STATUS + 5 * 4))));

    /** NFS version 3 (RFC 1813 §3.3), program 100003 version 3. */
    public static final ProgramBinding NFS_V3 = new ProgramBinding("NFS", NfsBindingConstants.NFS_PROGRAM,
            List.of(3), TransportRule.RPC_OVER_RDMA, List.of(
            of(0, "NULL", new Fixed(0)),
            of(1, "GETATTR", new Fixed(STATUS + 84)),
            of(2, "SETATTR", new Fixed(STATUS + WCC_DATA)),
            of(3, "LOOKUP", new Fixed(STATUS + NFS_FH3 + 2 * POST_OP_ATTR)),
            of(4, "ACCESS", new Fixed(STATUS + POST_OP_ATTR + 4)),
            of(5, "READLINK", new PlusPath(STATUS + POST_OP_ATTR + 4, PlusPath.NO_PROTOCOL_LIMIT, STATUS + POST_OP_ATTR),
                    result("READLINK", "pathname result (READLINK3resok.data)")),
            of(6, "READ", new PlusCount(STATUS + POST_OP_ATTR + 4 + 4 + 4, "count", 1, Long.MAX_VALUE,
                            STATUS + POST_OP_ATTR),
                    result("READ", "opaque file data result (READ3resok.data)")),
            of(7, "WRITE", new Fixed(STATUS + WCC_DATA + 4 + 4 + VERF3),
                    argument("WRITE", "opaque file data argument (WRITE3args.data)")),
            of(8, "CREATE", new Fixed(DIROP3)),
            of(9, "MKDIR", new Fixed(DIROP3)),
            of(10, "SYMLINK", new Fixed(DIROP3),
                    argument("SYMLINK", "pathname argument (SYMLINK3args.symlink.symlink_data)")),
            of(11, "MKNOD", new Fixed(DIROP3)),
            of(12, "REMOVE", new Fixed(STATUS + WCC_DATA)),
            of(13, "RMDIR", new Fixed(STATUS + WCC_DATA)),
            of(14, "RENAME", new Fixed(STATUS + 2 * WCC_DATA)),
            of(15, "LINK", new Fixed(STATUS + POST_OP_ATTR + WCC_DATA)),
            // count is "the maximum size of the READDIR3resok structure, including all XDR overhead".
            of(16, "READDIR", new PlusCount(STATUS, "count", 1, Long.MAX_VALUE, STATUS + POST_OP_ATTR)),
            of(17, "READDIRPLUS", new PlusCount(STATUS, "maxcount", 1, Long.MAX_VALUE, STATUS + POST_OP_ATTR)),
            of(18, "FSSTAT", new Fixed(STATUS + POST_OP_ATTR + 6 * 8 + 4)),
            of(19, "FSINFO", new Fixed(STATUS + POST_OP_ATTR + 7 * 4 + 8 + 8 + 4)),
            of(20, "PATHCONF", new Fixed(STATUS + POST_OP_ATTR + 2 * 4 + 4 * 4)),
            of(21, "COMMIT", new Fixed(STATUS + WCC_DATA + VERF3))));

    private LegacyNfsBinding() {
    }

    /** The binding of NFS version 2 or 3. */
    public static ProgramBinding forVersion(int version) {
        return switch (version) {
            case 2 -> NFS_V2;
            case 3 -> NFS_V3;
            default -> throw new IllegalArgumentException("not a legacy NFS version (2, 3): " + version);
        };
    }
}
