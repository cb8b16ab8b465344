package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.tools.nfs.NfsFileInfo;
import org.iwarp4j.tools.nfs.NfsFiles;
import org.iwarp4j.tools.nfs.NfsListing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code iwarp nfs ls SERVER:/path}: a directory's entries (READDIRPLUS), or one file's attributes. */
@Command(name = "ls", mixinStandardHelpOptions = true, sortOptions = false,
        description = "List a directory on an NFS server (NFSv3 READDIRPLUS, NFSv4 READDIR), or show one file, "
                + "over RDMA or TCP.",
        footer = {"", "Exit status: 0 listed, 1 failed (e.g. NFS3ERR_NOENT, NFS4ERR_NOENT), 2 usage error,",
                "3 no connection."})
final class NfsLsCommand extends NfsClientCommand {

    @Parameters(index = "0", paramLabel = "SERVER:/path", description = "e.g. server:/export or server:/export/dir")
    String location;

    @Option(names = "-l", description = "long format: type and mode, links, uid, gid, size, mtime, name")
    boolean longFormat;

    @Override
    String name() {
        return "ls";
    }

    @Override
    String location() {
        return location;
    }

    @Override
    int run(NfsSession session, NfsLocation where, PrintWriter out, PrintWriter err) {
        NfsFiles nfs = session.files();
        NfsFileInfo attributes = nfs.stat(session.path());
        if (!attributes.isDirectory()) {
            String name = where.path().substring(where.path().lastIndexOf('/') + 1);
            print(out, nfs, session.path(), attributes.withName(name));
            return 0;
        }
        List<NfsFileInfo> entries = nfs.list(session.path()).stream()
                .sorted(Comparator.comparing(NfsFileInfo::name)).toList();
        for (NfsFileInfo e : entries) {
            print(out, nfs, session.path().isEmpty() ? e.name() : session.path() + "/" + e.name(), e);
        }
        return 0;
    }

    private void print(PrintWriter out, NfsFiles nfs, String path, NfsFileInfo a) {
        out.println(NfsListing.line(a, longFormat && a.type() == 'l' ? nfs.readlink(path) : null, longFormat));
    }

    /** ls's mode string: the type letter and rwx bits (with setuid, setgid and sticky). */
    static String mode(Fattr3 a) {
        NfsFileInfo info = NfsFileInfo.of("", a);
        return NfsListing.mode(info.type(), info.mode());
    }
}
