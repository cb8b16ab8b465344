package org.iwarp4j.tools.nfs;

import java.time.Duration;
import org.iwarp4j.oncrpc.AuthSys;

/**
 * How a client reaches an NFS server: its NFS port over TCP, its NFS port over RPC-over-RDMA, its
 * MOUNT port, the export to mount ({@code null}: the longest export listed by MOUNT EXPORT that holds
 * the path) and the AUTH_SYS identity and timeout of every call.
 */
public record NfsServerAccess(int port, int rdmaPort, int mountPort, String export, int uid, int gid,
                              Duration timeout) {

    public AuthSys credential() {
        return new AuthSys(0, "iwarp4j", uid, gid, new int[0]);
    }
}
