package org.iwarp4j.tools.nfs;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;

/**
 * Which export holds a path: MOUNT's EXPORT procedure (RFC 1813 Appendix I §5.2.5) over TCP, and
 * the longest listed directory that is the path or one of its ancestors, as mount(8) users expect
 * {@code server:/export/dir/file} to work.
 */
public final class MountExports {

    private MountExports() {
    }

    /** The exports {@code mountServer} lists. */
    public static List<String> list(InetSocketAddress mountServer, AuthSys credential, Duration timeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        RpcTcpClientTransport transport = RpcTcpClientTransport.connect(mountServer)
                .get(timeout.toSeconds(), TimeUnit.SECONDS);
        try (RpcClient mount = RpcClient.builder(transport).credential(credential).timeout(timeout).build()) {
            return mount.call(MountConstants.PROGRAM, MountConstants.VERSION, MountConstants.MOUNTPROC3_EXPORT,
                    args -> { }, ExportNode::decodeList).get(timeout.toSeconds(), TimeUnit.SECONDS)
                    .stream().map(ExportNode::directory).toList();
        }
    }

    /** The longest of {@code exports} that holds {@code location}'s path, or null. */
    public static String holding(NfsLocation location, List<String> exports) {
        String best = null;
        for (String e : exports) {
            if (location.below(e) != null && (best == null || NfsLocation.normalise(e).length() > best.length())) {
                best = NfsLocation.normalise(e);
            }
        }
        return best;
    }
}
