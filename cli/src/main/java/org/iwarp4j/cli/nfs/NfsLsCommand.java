package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Readlink3Res;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code iwarp nfs ls SERVER:/path}: a directory's entries (READDIRPLUS), or one file's attributes. */
@Command(name = "ls", mixinStandardHelpOptions = true, sortOptions = false,
        description = "List a directory on an NFSv3 server (READDIRPLUS), or show one file, over RDMA or TCP.",
        footer = {"", "Exit status: 0 listed, 1 failed (e.g. NFS3ERR_NOENT), 2 usage error,", "3 no connection."})
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
        NfsClient nfs = session.client();
        Fattr3 attributes = nfs.stat(session.path());
        if (attributes.type() != Ftype3.NF3DIR) {
            String name = where.path().substring(where.path().lastIndexOf('/') + 1);
            print(out, nfs, name, attributes, null);
            return 0;
        }
        List<EntryPlus3> entries = nfs.list(session.path()).stream()
                .sorted(Comparator.comparing(EntryPlus3::name)).toList();
        for (EntryPlus3 e : entries) {
            print(out, nfs, e.name(), e.nameAttributes(), e.nameHandle());
        }
        return 0;
    }

    private void print(PrintWriter out, NfsClient nfs, String name, Fattr3 a, NfsFh3 handle) {
        if (!longFormat || a == null) {
            out.println(name);
            return;
        }
        String target = "";
        if (a.type() == Ftype3.NF3LNK && handle != null) {
            Readlink3Res link = nfs.readlink(handle).join();
            target = link.status().isOk() ? " -> " + link.data() : "";
        }
        out.printf("%s %3d %5d %5d %12d %s %s%s%n", mode(a), Integer.toUnsignedLong(a.nlink()),
                Integer.toUnsignedLong(a.uid()), Integer.toUnsignedLong(a.gid()), a.size(),
                TIME.format(a.mtime().toInstant()), name, target);
    }

    /** ls's mode string: the type letter and rwx bits (with setuid, setgid and sticky). */
    static String mode(Fattr3 a) {
        char type = switch (a.type()) {
            case NF3DIR -> 'd';
            case NF3LNK -> 'l';
            case NF3BLK -> 'b';
            case NF3CHR -> 'c';
            case NF3SOCK -> 's';
            case NF3FIFO -> 'p';
            default -> '-';
        };
        int m = a.mode();
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
