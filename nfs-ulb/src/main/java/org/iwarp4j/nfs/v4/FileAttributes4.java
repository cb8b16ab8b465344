package org.iwarp4j.nfs.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * The fixed-size attributes of an fattr4 (RFC 8881 §3.3.15, §5.6, §5.7) that the NFSv4 client asks
 * for: type, change, size, fileid, mode, numlinks, time_modify, maxread, maxwrite, space_avail and
 * lease_time, and the two strings owner and owner_group (§5.8.2.26, §5.8.2.27). A number the server
 * did not return is -1, a string null. Decoding walks the attribute values in ascending bit order (the
 * order RFC 8881 §3.3.15 prescribes) and stops at the first attribute it does not know the size of,
 * so a server adding more than was asked for is tolerated.
 *
 * @param mask the attributes returned
 */
public record FileAttributes4(Bitmap4 mask, int type, long change, long size, long fileid, int mode, int numlinks,
                              long mtimeSeconds, int mtimeNanos, long maxRead, long maxWrite, long spaceAvailable,
                              int leaseSeconds, String owner, String ownerGroup) {

    /** What the client asks for in GETATTR and READDIR. */
    public static final Bitmap4 REQUEST = Bitmap4.of(FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FILEID,
            FATTR4_MODE, FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_TIME_MODIFY);

    /** What the client asks for once, at connect: the transfer size limits. */
    public static final Bitmap4 LIMITS = Bitmap4.of(FATTR4_TYPE, FATTR4_MAXREAD, FATTR4_MAXWRITE);

    /** {@link #LIMITS} and the lease (RFC 8881 §5.8.1.11), which paces the client's renewals (§8.3). */
    public static final Bitmap4 LIMITS_AND_LEASE = Bitmap4.of(FATTR4_TYPE, FATTR4_LEASE_TIME, FATTR4_MAXREAD,
            FATTR4_MAXWRITE);

    /** The space available to the caller (RFC 8881 §5.8.2.33). */
    public static final Bitmap4 SPACE = Bitmap4.of(FATTR4_TYPE, FATTR4_SPACE_AVAIL);

    /** Whether this is a directory (NF4DIR). */
    public boolean isDirectory() {
        return type == NF4DIR;
    }

    /** Whether this is a regular file (NF4REG). */
    public boolean isRegularFile() {
        return type == NF4REG;
    }

    /** Decodes an fattr4: attrmask, then attr_vals as an opaque. */
    public static FileAttributes4 decode(XdrDecoder in) {
        Bitmap4 mask = Bitmap4.decode(in);
        byte[] values = in.readOpaque(Integer.MAX_VALUE);
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(values);
        XdrDecoder v = new XdrDecoder(buf);
        int type = -1;
        int mode = -1;
        int numlinks = -1;
        int mtimeNanos = -1;
        long change = -1;
        long size = -1;
        long fileid = -1;
        long mtime = -1;
        long maxRead = -1;
        long maxWrite = -1;
        long spaceAvailable = -1;
        int lease = -1;
        String owner = null;
        String group = null;
        walk:
        for (int bit : mask.bits()) {
            switch (bit) {
                case FATTR4_SUPPORTED_ATTRS -> Bitmap4.decode(v);
                case FATTR4_TYPE -> type = v.readInt();
                case FATTR4_FH_EXPIRE_TYPE, FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_NAMED_ATTR,
                     FATTR4_UNIQUE_HANDLES, FATTR4_RDATTR_ERROR, FATTR4_CANSETTIME,
                     FATTR4_CASE_INSENSITIVE, FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_HOMOGENEOUS,
                     FATTR4_MAXLINK, FATTR4_MAXNAME, FATTR4_NO_TRUNC -> v.readInt();
                case FATTR4_LEASE_TIME -> lease = v.readInt();
                case FATTR4_CHANGE -> change = v.readHyper();
                case FATTR4_SIZE -> size = v.readHyper();
                case FATTR4_FSID -> v.skip(16);
                case FATTR4_FILEHANDLE -> v.readOpaque(NFS4_FHSIZE);
                case FATTR4_FILEID -> fileid = v.readHyper();
                case FATTR4_SPACE_AVAIL -> spaceAvailable = v.readHyper();
                case FATTR4_FILES_AVAIL, FATTR4_FILES_FREE, FATTR4_FILES_TOTAL, FATTR4_MAXFILESIZE,
                     FATTR4_SPACE_FREE, FATTR4_SPACE_TOTAL, FATTR4_SPACE_USED,
                     FATTR4_MOUNTED_ON_FILEID -> v.readHyper();
                case FATTR4_MAXREAD -> maxRead = v.readHyper();
                case FATTR4_MAXWRITE -> maxWrite = v.readHyper();
                case FATTR4_MODE -> mode = v.readInt();
                case FATTR4_NUMLINKS -> numlinks = v.readInt();
                case FATTR4_OWNER -> owner = v.readString(NFS4_OPAQUE_LIMIT);
                case FATTR4_OWNER_GROUP -> group = v.readString(NFS4_OPAQUE_LIMIT);
                case FATTR4_RAWDEV -> v.skip(8);
                case FATTR4_TIME_ACCESS, FATTR4_TIME_DELTA, FATTR4_TIME_METADATA -> v.skip(12);
                case FATTR4_TIME_MODIFY -> {
                    mtime = v.readHyper();
                    mtimeNanos = v.readInt();
                }
                default -> {
                    break walk; // a size this decoder does not know: what follows cannot be found
                }
            }
        }
        return new FileAttributes4(mask, type, change, size, fileid, mode, numlinks, mtime, mtimeNanos, maxRead,
                maxWrite, spaceAvailable, lease, owner, group);
    }

    /**
     * Encodes an fattr4 that sets {@code size} (if not negative) and {@code mode} (if not
     * negative), the createattrs of OPEN's UNCHECKED4 (RFC 8881 §18.16.1).
     */
    public static void encodeSizeAndMode(XdrEncoder out, long size, int mode) {
        Bitmap4 mask = size >= 0 && mode >= 0 ? Bitmap4.of(FATTR4_SIZE, FATTR4_MODE)
                : size >= 0 ? Bitmap4.of(FATTR4_SIZE) : mode >= 0 ? Bitmap4.of(FATTR4_MODE) : Bitmap4.EMPTY;
        mask.encode(out);
        out.writeUnsignedInt((size >= 0 ? 8 : 0) + (mode >= 0 ? 4 : 0));
        if (size >= 0) {
            out.writeHyper(size);
        }
        if (mode >= 0) {
            out.writeInt(mode);
        }
    }
}
