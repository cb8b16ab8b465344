package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import org.iwarp4j.tools.nfs.NfsFileInfo;
import org.iwarp4j.tools.nfs.Sha256;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code iwarp nfs get SERVER:/path [LOCAL]}: a file's octets by pipelined READs (over RDMA: RDMA
 * Writes into Write chunks, RFC 8267), with their SHA-256, checked against GETATTR's size and
 * against the local copy as written.
 */
@Command(name = "get", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Copy a file from an NFS server (READ), over RDMA or TCP, with its SHA-256;",
                "verified: octets as GETATTR's size, and the local copy's SHA-256 as the data received."},
        footer = {"", "Exit status: 0 copied and verified, 1 failed or not verified,", "2 usage error, 3 no connection."})
final class NfsGetCommand extends NfsClientCommand {

    @Parameters(index = "0", paramLabel = "SERVER:/path", description = "the file, e.g. server:/export/data.bin")
    String location;

    @Parameters(index = "1", arity = "0..1", paramLabel = "LOCAL",
            description = "where to write it: a file or directory (default: its name here), - for stdout")
    String local;

    @Override
    String name() {
        return "get";
    }

    @Override
    String location() {
        return location;
    }

    @Override
    int run(NfsSession session, NfsLocation where, PrintWriter out, PrintWriter err) throws Exception {
        NfsFileInfo attributes = session.files().stat(session.path());
        if (!attributes.isRegularFile()) {
            String type = switch (attributes.type()) {
                case 'd' -> "DIR";
                case 'l' -> "LNK";
                case 'b' -> "BLK";
                case 'c' -> "CHR";
                case 's' -> "SOCK";
                case 'p' -> "FIFO";
                default -> "REG";
            };
            throw new java.io.IOException(where + " is not a regular file ("
                    + (session.version() == org.iwarp4j.tools.nfs.NfsVersion.V3 ? "NF3" : "NF4") + type + ")");
        }
        String name = where.path().substring(where.path().lastIndexOf('/') + 1);
        Path target = local == null ? Path.of(name) : "-".equals(local) ? null
                : Files.isDirectory(Path.of(local)) ? Path.of(local).resolve(name) : Path.of(local);
        MessageDigest sha = Sha256.digest();
        long start = System.nanoTime();
        long octets;
        OutputStream sink = target == null ? new FilterOutputStream(System.out) {
            @Override
            public void close() {
                // leave stdout open; flushed below
            }
        } : Files.newOutputStream(target);
        try (OutputStream data = new DigestOutputStream(new BufferedOutputStream(sink, 1 << 20), sha)) {
            octets = session.files().download(session.path(), data);
        }
        System.out.flush();
        long nanos = System.nanoTime() - start;
        byte[] digest = sha.digest();
        PrintWriter report = target == null ? err : out;
        report.printf(Locale.ROOT, "# get %s -> %s: %d octets over %s in %.3f s (%.2f MB/s), SHA-256 %s%n", where,
                target == null ? "stdout" : target, octets, over(session), nanos / 1e9,
                megabytesPerSecond(octets, nanos), Sha256.hex(digest));
        if (octets != attributes.size()) {
            throw notVerified(octets + " octets read, GETATTR said " + attributes.size());
        }
        if (target != null && !Arrays.equals(Sha256.of(target), digest)) {
            throw notVerified(target + " does not hold the octets received (SHA-256 " + Sha256.hex(Sha256.of(target))
                    + ")");
        }
        report.println("# verified: " + octets + " octets as GETATTR's size" + (target == null ? ""
                : ", and " + target + " has the SHA-256 of the data received"));
        return 0;
    }
}
