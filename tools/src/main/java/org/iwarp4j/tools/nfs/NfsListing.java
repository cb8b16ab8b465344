package org.iwarp4j.tools.nfs;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.iwarp4j.mpa.internal.text.PeerText;

/**
 * The lines of an ls-style listing of NFS files, as {@code iwarp nfs ls} prints them. The name, a
 * link's target and NFSv4's owner and group strings are the server's (any user who can create a
 * file on the export chooses some), so their control characters are escaped ({@link PeerText}):
 * raw, they would act on the terminal the listing is printed to.
 */
public final class NfsListing {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneId.systemDefault());

    private NfsListing() {
    }

    /**
     * One line: the name, or with {@code longFormat} ls -l's columns (mode, links, owner, group,
     * size, mtime, name) and {@code -> linkTarget} when there is one ({@code null}: none).
     */
    public static String line(NfsFileInfo a, String linkTarget, boolean longFormat) {
        String name = PeerText.escape(a.name());
        if (!longFormat) {
            return name;
        }
        return String.format("%s %3d %5s %5s %12d %s %s%s", mode(a.type(), a.mode()), a.links(),
                PeerText.escape(a.ownerText()), PeerText.escape(a.groupText()), a.size(),
                a.mtime() == null ? "-" : TIME.format(a.mtime()), name,
                linkTarget == null ? "" : " -> " + PeerText.escape(linkTarget));
    }

    /** ls's mode string of a type letter and permission bits (with setuid, setgid and sticky). */
    public static String mode(char type, int m) {
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
