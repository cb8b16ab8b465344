package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MOUNT's advisory list (what DUMP answers) keeps at most {@link MountProgram#MAX_MOUNTS}
 * entries, the oldest dropped first: every admitted host that mounts adds one, and a wide
 * admitted network has more hosts than the server has memory. MNT itself still succeeds.
 */
class MountProgramTest {

    @TempDir
    Path dir;

    private static RpcCallContext from(String host) {
        return new RpcCallContext(new RpcCallInfo(1, MountConstants.PROGRAM, MountConstants.VERSION,
                MountConstants.MOUNTPROC3_MNT), OpaqueAuth.NONE, OpaqueAuth.NONE, new AuthSys(0, "h", 0, 0, new int[0]),
                RpcTransportInfo.of("test", new InetSocketAddress("127.0.0.1", 2049), new InetSocketAddress(host, 700)));
    }

    private static String host(int i) {
        return "10.0." + (i / 256) + "." + (i % 256);
    }

    @Test
    void theMountListKeepsTheNewestEntriesUpToItsBound() throws Exception {
        Export export = new Export(dir, "/export");
        try (Nfs3Context ctx = new Nfs3Context(export, ExportOptions.builder().client("*").build(),
                Nfs3Limits.defaults())) {
            MountProgram mount = new MountProgram(ctx);
            int hosts = MountProgram.MAX_MOUNTS + 10;
            for (int i = 0; i < hosts; i++) {
                assertThat(mount.mnt(from(host(i)), "/export").status()).as("MNT from %s", host(i))
                        .isEqualTo(MountStat3.MNT3_OK);
            }
            List<MountBody> list = mount.mounted();
            assertThat(list).hasSize(MountProgram.MAX_MOUNTS);
            assertThat(list.get(0)).as("the ten oldest were dropped").isEqualTo(new MountBody(host(10), "/export"));
            assertThat(list.get(list.size() - 1)).isEqualTo(new MountBody(host(hosts - 1), "/export"));

            assertThat(mount.mnt(from(host(10)), "/export").status()).isEqualTo(MountStat3.MNT3_OK);
            assertThat(mount.mounted()).as("mounted again: the newest").hasSize(MountProgram.MAX_MOUNTS)
                    .last().isEqualTo(new MountBody(host(10), "/export"));
        }
    }
}
