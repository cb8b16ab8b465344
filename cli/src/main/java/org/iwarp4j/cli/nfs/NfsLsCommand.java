package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import org.iwarp4j.mpa.internal.text.PeerText;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.tools.nfs.NfsFileInfo;
import org.iwarp4j.tools.nfs.NfsFiles;
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

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneId.systemDefault());

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
        out.println(line(a, longFormat && a.type() == 'l' ? nfs.readlink(path) : null, longFormat));
    }

    /**
     * One line of the listing: the name, or with {@code longFormat} ls -l's columns and
     * {@code -> linkTarget} when there is one. The name, the target and NFSv4's owner and group
     * strings are the server's (any user who can create a file on the export chooses some), so
     * their control characters are escaped ({@link PeerText}).
     */
    static String line(NfsFileInfo a, String linkTarget, boolean longFormat) {
        String name = PeerText.escape(a.name());
        if (!longFormat) {
            return name;
        }
        return String.format("%s %3d %5s %5s %12d %s %s%s", mode(a.type(), a.mode()), a.links(),
                PeerText.escape(a.ownerText()), PeerText.escape(a.groupText()), a.size(),
                a.mtime() == null ? "-" : TIME.format(a.mtime()), name,
                linkTarget == null ? "" : " -> " + PeerText.escape(linkTarget));
    }

    /** ls's mode string: the type letter and rwx bits (with setuid, setgid and sticky). */
    static String mode(Fattr3 a) {
        NfsFileInfo info = NfsFileInfo.of("", a);
        return mode(info.type(), info.mode());
    }

    /** ls's mode string of a type letter and permission bits. */
    static String mode(char type, int m) {
        StringBuilder s = new StringBuilder().append(type);
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            s.append((m & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        special(s, 3, (m & 04000) != 0, 's');
        special(s, 6, (m & 02000) != 0, 's');
        special(s, 9, (m & 01000) != 0, 't');
        return s.toString();
    }

    private static void special(StringBuilder s, int at, boolean set, char letter) {
        if (set) {
            s.setCharAt(at, s.charAt(at) == '-' ? Character.toUpperCase(letter) : letter);
        }
    }
}
