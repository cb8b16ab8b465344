package org.iwarp4j.nfs.mount;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * exportnode (RFC 1813 Appendix I §5.2.5): one exported directory and the groups (host names or
 * netgroups) allowed to mount it; no groups means everyone.
 */
public record ExportNode(String directory, List<String> groups) {

    public ExportNode {
        Objects.requireNonNull(directory, "directory");
        groups = List.copyOf(groups);
    }

    /** The exports list as an XDR linked list of linked lists. */
    public static void encodeList(XdrEncoder out, List<ExportNode> list) {
        for (ExportNode e : list) {
            out.writeBoolean(true).writeString(e.directory, MountConstants.MNTPATHLEN);
            for (String g : e.groups) {
                out.writeBoolean(true).writeString(g, MountConstants.MNTNAMLEN);
            }
            out.writeBoolean(false);
        }
        out.writeBoolean(false);
    }

    public static List<ExportNode> decodeList(XdrDecoder in) {
        List<ExportNode> list = new ArrayList<>();
        while (in.readBoolean()) {
            String dir = in.readString(MountConstants.MNTPATHLEN);
            List<String> groups = new ArrayList<>();
            while (in.readBoolean()) {
                groups.add(in.readString(MountConstants.MNTNAMLEN));
                check(groups.size());
            }
            list.add(new ExportNode(dir, groups));
            check(list.size());
        }
        return list;
    }

    private static void check(int size) {
        if (size > MountConstants.MAX_DECODED_LIST) {
            throw new XdrException("list longer than " + MountConstants.MAX_DECODED_LIST);
        }
    }
}
