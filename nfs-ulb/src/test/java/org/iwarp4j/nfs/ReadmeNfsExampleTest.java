package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of docs/nfs.md, run as a test; keep the two in step. */
class ReadmeNfsExampleTest {

    @TempDir
    Path directory;

    @Test
    void readmeExample() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        byte[] bytes = "hello over NFS".getBytes(StandardCharsets.UTF_8);

        // --- docs/nfs.md example begins ---
        // Server: export a directory as /export; NFSv3 and MOUNT v3 on one TCP port.
        try (NfsServer server = NfsServer.builder(directory)
                .exportName("/export")
                // read-write, and trust uid 0 (NfsClient's default); the default is read-only,
                // root squashed, loopback clients only
                .exportOptions(ExportOptions.builder().readWrite().rootSquash(false).build())
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0))    // 2049 by default
                .start();
             // Client: MNT over TCP, then NFS; FSINFO sets the transfer sizes.
             NfsClient nfs = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                     .export("/export")
                     .connect()) {
            nfs.upload(new ByteArrayInputStream(bytes), "hello.txt");      // CREATE, WRITE UNSTABLE, COMMIT
            ByteArrayOutputStream back = new ByteArrayOutputStream();
            nfs.download("hello.txt", back);                              // pipelined READs
            out.println(back.toString(StandardCharsets.UTF_8));           // hello over NFS
            for (EntryPlus3 e : nfs.list("")) {                           // READDIRPLUS
                out.println(e.name() + " " + e.nameAttributes().size());  // hello.txt 14
            }
            // Every procedure is there too, asynchronously, with the RFC's result records.
            NfsFh3 file = nfs.lookupPath("hello.txt");
            out.println(nfs.remove(nfs.root(), "hello.txt").get().status()); // NFS3_OK
            out.println(nfs.getattr(file).get().status());                // NFS3ERR_STALE
        }
        // --- docs/nfs.md example ends ---

        assertThat(printed.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                "hello over NFS", "hello.txt 14", Nfs3Status.NFS3_OK.name(), Nfs3Status.NFS3ERR_STALE.name());
    }
}
