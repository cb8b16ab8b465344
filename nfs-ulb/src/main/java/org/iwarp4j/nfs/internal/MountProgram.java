package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcConstants;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;

/**
 * MOUNT version 3 (RFC 1813 Appendix I) for one export: MNT hands out the root file handle for
 * the export's name and accepts AUTH_SYS, to admitted client addresses only (MNT3ERR_ACCES
 * otherwise, as mountd answers a host its exports do not name); UMNT, UMNTALL and DUMP keep the
 * advisory list of who mounted what; EXPORT lists the export with its client networks as the
 * groups, open to everyone (as showmount -e is). RFC 8267 §5.1: a server offering NFS over
 * RPC-over-RDMA offers MOUNT over TCP.
 */
public final class MountProgram {

    /**
     * Entries the advisory list keeps at most, the oldest dropped first: one per admitted host
     * that mounted, and a wide admitted network (an IPv6 prefix) has more hosts than memory.
     */
    static final int MAX_MOUNTS = 1024;

    private final Nfs3Context ctx;
    /** In the order mounted; guarded by itself. */
    private final Set<MountBody> mounts = new java.util.LinkedHashSet<>();

    public MountProgram(Nfs3Context ctx) {
        this.ctx = ctx;
    }

    public RpcProgram toRpcProgram() {
        return RpcProgram.builder(MountConstants.PROGRAM, MountConstants.VERSION)
                .procedure(MountConstants.MOUNTPROC3_NULL, RpcProcedure.nullProcedure())
                .procedure(MountConstants.MOUNTPROC3_MNT, RpcProcedure.of((c, in, out) ->
                        mnt(c, in.readString(MountConstants.MNTPATHLEN)).encode(out)))
                .procedure(MountConstants.MOUNTPROC3_DUMP, RpcProcedure.of((c, in, out) ->
                        MountBody.encodeList(out, mounted())))
                .procedure(MountConstants.MOUNTPROC3_UMNT, RpcProcedure.of((c, in, out) -> {
                    MountBody gone = new MountBody(host(c), in.readString(MountConstants.MNTPATHLEN));
                    synchronized (mounts) {
                        mounts.remove(gone);
                    }
                }))
                .procedure(MountConstants.MOUNTPROC3_UMNTALL, RpcProcedure.of((c, in, out) -> {
                    String host = host(c);
                    synchronized (mounts) {
                        mounts.removeIf(m -> m.hostname().equals(host));
                    }
                }))
                .procedure(MountConstants.MOUNTPROC3_EXPORT, RpcProcedure.of((c, in, out) ->
                        ExportNode.encodeList(out, List.of(new ExportNode(ctx.export().name(),
                                ctx.options().clients().stream().map(Object::toString).toList())))))
                .build();
    }

    Mountres3 mnt(RpcCallContext c, String dirpath) {
        if (!normalise(dirpath).equals(normalise(ctx.export().name()))) {
            return Mountres3.fail(MountStat3.MNT3ERR_NOENT);
        }
        if (!ctx.caller(c).admitted()) {
            return Mountres3.fail(MountStat3.MNT3ERR_ACCES);
        }
        try {
            Mountres3 res = new Mountres3(MountStat3.MNT3_OK, ctx.handles().rootHandle(), List.of(RpcConstants.AUTH_SYS));
            remember(new MountBody(host(c), ctx.export().name()));
            return res;
        } catch (IOException e) {
            return Mountres3.fail(MountStat3.MNT3ERR_IO);
        }
    }

    private void remember(MountBody mount) {
        synchronized (mounts) {
            mounts.remove(mount); // mounted again: now the newest
            if (mounts.size() >= MAX_MOUNTS) {
                java.util.Iterator<MountBody> oldest = mounts.iterator();
                oldest.next();
                oldest.remove();
            }
            mounts.add(mount);
        }
    }

    /** The advisory list, oldest first. */
    List<MountBody> mounted() {
        synchronized (mounts) {
            return List.copyOf(mounts);
        }
    }

    private static String normalise(String path) {
        String p = path.replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static String host(RpcCallContext c) {
        SocketAddress remote = c.transport().remoteAddress();
        if (remote instanceof InetSocketAddress inet) {
            return inet.getHostString();
        }
        return remote == null ? "unknown" : remote.toString();
    }
}
