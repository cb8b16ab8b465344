package org.iwarp4j.nfs.mount;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/** mountbody (RFC 1813 Appendix I §5.2.2): one entry of the DUMP list, a client and what it mounted. */
public record MountBody(String hostname, String directory) {

    public MountBody {
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(directory, "directory");
    }

    /** The mountlist as an XDR linked list. */
    public static void encodeList(XdrEncoder out, List<MountBody> list) {
        for (MountBody b : list) {
            out.writeBoolean(true).writeString(b.hostname, MountConstants.MNTNAMLEN)
                    .writeString(b.directory, MountConstants.MNTPATHLEN);
        }
        out.writeBoolean(false);
    }

    public static List<MountBody> decodeList(XdrDecoder in) {
        List<MountBody> list = new ArrayList<>();
        while (in.readBoolean()) {
            if (list.size() == MountConstants.MAX_DECODED_LIST) {
                throw new XdrException("mount list longer than " + MountConstants.MAX_DECODED_LIST);
            }
            list.add(new MountBody(in.readString(MountConstants.MNTNAMLEN), in.readString(MountConstants.MNTPATHLEN)));
        }
        return list;
    }
}
