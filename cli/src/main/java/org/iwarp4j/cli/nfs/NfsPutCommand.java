package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import org.iwarp4j.tools.nfs.NfsFiles;
import org.iwarp4j.tools.nfs.Sha256;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Locale;
import org.iwarp4j.nfs.NfsStatusException;
import org.iwarp4j.nfs.v3.Nfs3Status;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code iwarp nfs put LOCAL SERVER:/path}: CREATE, pipelined UNSTABLE WRITEs (over RDMA: Read
 * chunks the server pulls with RDMA Read, RFC 8267) and COMMIT; then reads the file back and
 * compares its SHA-256 with the local file's.
 */
@Command(name = "put", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Copy a local file to an NFS server (NFSv3 CREATE or NFSv4 OPEN, WRITE, COMMIT), over RDMA or TCP;",
                "verified: the file is read back and its SHA-256 compared with the local file's."},
        footer = {"", "Exit status: 0 copied and verified, 1 failed or not verified,", "2 usage error, 3 no connection."})
final class NfsPutCommand extends NfsClientCommand {

    @Parameters(index = "0", paramLabel = "LOCAL", description = "the local file")
    Path local;

    @Parameters(index = "1", paramLabel = "SERVER:/path",
            description = "the file to write, or a directory to write LOCAL's name into")
    String location;

    @Option(names = "--no-verify", description = "do not read the file back")
    boolean noVerify;

    @Override
    String name() {
        return "put";
    }

    @Override
    String location() {
        return location;
    }

    @Override
    void checkOptions() {
        if (!Files.isRegularFile(local)) {
            throw new ParameterException(spec.commandLine(), "not a regular file: " + local);
        }
    }

    @Override
    int run(NfsSession session, NfsLocation where, PrintWriter out, PrintWriter err) throws Exception {
        NfsFiles nfs = session.files();
        String remote = session.path();
        String shown = where.toString();
        if (isDirectory(nfs, remote)) {
            String name = local.getFileName().toString();
            remote = remote.isEmpty() ? name : remote + "/" + name;
            shown = shown + (shown.endsWith("/") ? "" : "/") + name;
        }
        MessageDigest sha = Sha256.digest();
        long start = System.nanoTime();
        long octets;
        try (InputStream in = new DigestInputStream(new BufferedInputStream(Files.newInputStream(local), 1 << 20), sha)) {
            octets = nfs.upload(in, remote);
        }
        long nanos = System.nanoTime() - start;
        byte[] digest = sha.digest();
        out.printf(Locale.ROOT, "# put %s -> %s: %d octets over %s in %.3f s (%.2f MB/s), SHA-256 %s%n", local, shown,
                octets, over(session), nanos / 1e9, megabytesPerSecond(octets, nanos), Sha256.hex(digest));
        long size = nfs.stat(remote).size();
        if (size != octets || octets != Files.size(local)) {
            throw notVerified("the server's file has " + size + " octets; " + octets + " were written of "
                    + Files.size(local));
        }
        if (noVerify) {
            out.println("# size verified (" + size + " octets); not read back (--no-verify)");
            return 0;
        }
        MessageDigest back = Sha256.digest();
        try (OutputStream discard = new DigestOutputStream(OutputStream.nullOutputStream(), back)) {
            nfs.download(remote, discard);
        }
        byte[] backDigest = back.digest();
        if (!Arrays.equals(backDigest, digest)) {
            throw notVerified("read back, the file's SHA-256 is " + Sha256.hex(backDigest));
        }
        out.println("# verified: read back over " + session.transport() + ", " + size
                + " octets with the same SHA-256");
        return 0;
    }

    private static boolean isDirectory(NfsFiles nfs, String path) {
        try {
            return nfs.stat(path).isDirectory();
        } catch (NfsStatusException e) {
            if (e.status() == Nfs3Status.NFS3ERR_NOENT) { // also NFS4ERR_NOENT (Nfs4StatusException)
                return false;
            }
            throw e;
        }
    }
}
