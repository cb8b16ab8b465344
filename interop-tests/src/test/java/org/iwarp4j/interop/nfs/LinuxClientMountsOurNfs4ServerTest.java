package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.interop.peer.LinuxPeerExtension;
import org.iwarp4j.mpa.NegotiationMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer's Linux kernel NFS client mounts our {@link org.iwarp4j.nfs.NfsServer} with NFSv4.1
 * and 4.2 (RFC 8881, RFC 7862), over RPC-over-RDMA and over TCP.
 */
@ExtendWith(LinuxPeerExtension.class)
class LinuxClientMountsOurNfs4ServerTest {

    private static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(10);

    private final LinuxPeer peer;
    @TempDir
    Path export;

    LinuxClientMountsOurNfs4ServerTest(LinuxPeer peer) {
        this.peer = peer;
    }

    @Test
    void mountWithoutVersionGetsFourPointTwoOverRdma() throws Exception {
        Files.writeString(export.resolve("hello.txt"), "hello over NFSv4\n");
        try (OurServerMountedByLinux mount = OurServerMountedByLinux.mount(peer, export, false,
                NegotiationMode.REQUIRE, "nfsv4", "/", server -> "proto=rdma,port=" + server.rdmaPort())) {
            assertThat(mount.procMountsLine()).contains("vers=4.2").contains("proto=rdma");
            assertThat(peer.exec("cat " + mount.onPeer("hello.txt")).requireSuccess().stdout())
                    .isEqualTo("hello over NFSv4\n");
        }
    }
}
