package org.iwarp4j.nfs.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcCallContext;

/**
 * Whom one NFS call acts as: the AUTH_SYS uid, gid and auxiliary gids after the export's squashing
 * (knfsd's {@code nfsd_setuser}), and whether the caller's address is admitted at all.
 *
 * @param uid the effective uid
 * @param gid the effective gid
 * @param gids the auxiliary gids (not copied: never exposed)
 * @param admitted whether the client address is in the export's client list
 * @param address the caller's address (for messages), or null
 */
public record Caller(int uid, int gid, int[] gids, boolean admitted, SocketAddress address) {

    /** Unset ids in knfsd (INVALID_UID/GID) become the anonymous ones. */
    private static final int INVALID_ID = -1;

    /**
     * The caller of an RPC call under these options. AUTH_NONE (no AUTH_SYS credential) and all
     * squash act as anonuid/anongid without groups; root squash maps uid 0, gid 0 and every
     * auxiliary gid 0 to the anonymous ids, as knfsd does.
     */
    public static Caller of(RpcCallContext call, ExportOptions options) {
        SocketAddress remote = call.transport().remoteAddress();
        InetAddress address = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
        boolean admitted = options.admits(address);
        AuthSys sys = call.authSys();
        if (sys == null || options.allSquash()) {
            return new Caller(options.anonUid(), options.anonGid(), new int[0], admitted, remote);
        }
        int uid = sys.uid();
        int gid = sys.gid();
        int[] gids = sys.gids();
        if (options.rootSquash()) {
            uid = uid == 0 ? options.anonUid() : uid;
            gid = gid == 0 ? options.anonGid() : gid;
            for (int i = 0; i < gids.length; i++) {
                gids[i] = gids[i] == 0 ? options.anonGid() : gids[i];
            }
        }
        return new Caller(uid == INVALID_ID ? options.anonUid() : uid, gid == INVALID_ID ? options.anonGid() : gid,
                gids, admitted, remote);
    }

    /** uid 0 (not squashed): the file-system rules let it read and write anything. */
    public boolean isRoot() {
        return uid == 0;
    }

    /** Whether {@code g} is the caller's gid or one of its auxiliary gids. */
    public boolean inGroup(int g) {
        if (gid == g) {
            return true;
        }
        for (int x : gids) {
            if (x == g) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "uid " + Integer.toUnsignedString(uid) + " gid " + Integer.toUnsignedString(gid) + " from " + address;
    }
}
