package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import org.iwarp4j.nfs.internal.Caller;
import org.iwarp4j.nfs.internal.FileStat;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.SetTime3;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * fattr4 (RFC 8881 §5): the attributes the server reports and sets. GETATTR and READDIR answer
 * the attributes asked for that are in {@link #SUPPORTED}, in ascending order, and say which in
 * the returned bitmap (§5.1: an unsupported one is simply left out). owner and owner_group are
 * numeric strings (§5.9: what Linux clients send and accept for AUTH_SYS); a name@domain to
 * set is NFS4ERR_BADOWNER. fs_locations, ACLs and
 * named attributes are not supported, so a client never sees a referral.
 *
 * <p>Settable (SETATTR, OPEN and CREATE): size, mode, owner, owner_group, time_access_set,
 * time_modify_set. Setting an attribute the server does not support is NFS4ERR_ATTRNOTSUPP, a
 * read-only one NFS4ERR_INVAL (§18.30.4).
 */
final class Attributes4 {

    static final Bitmap4 SUPPORTED = Bitmap4.of(FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_FH_EXPIRE_TYPE,
            FATTR4_CHANGE, FATTR4_SIZE, FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_NAMED_ATTR, FATTR4_FSID,
            FATTR4_UNIQUE_HANDLES, FATTR4_LEASE_TIME, FATTR4_RDATTR_ERROR, FATTR4_CANSETTIME,
            FATTR4_CASE_INSENSITIVE, FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_FILEHANDLE,
            FATTR4_FILEID, FATTR4_HOMOGENEOUS, FATTR4_MAXFILESIZE, FATTR4_MAXLINK, FATTR4_MAXNAME, FATTR4_MAXREAD,
            FATTR4_MAXWRITE, FATTR4_MODE, FATTR4_NO_TRUNC, FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP,
            FATTR4_RAWDEV, FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE, FATTR4_SPACE_TOTAL, FATTR4_SPACE_USED,
            FATTR4_TIME_ACCESS, FATTR4_TIME_ACCESS_SET, FATTR4_TIME_DELTA, FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY,
            FATTR4_TIME_MODIFY_SET, FATTR4_MOUNTED_ON_FILEID, FATTR4_SUPPATTR_EXCLCREAT);

    static final Bitmap4 SETTABLE = Bitmap4.of(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP,
            FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET);

    /** What OPEN with EXCLUSIVE4_1 may set (RFC 8881 §5.8.1.14): not the times, which hold the verifier. */
    static final Bitmap4 EXCLUSIVE_CREATE = Bitmap4.of(FATTR4_SIZE, FATTR4_MODE, FATTR4_OWNER, FATTR4_OWNER_GROUP);

    /** Octets of the attribute values GETATTR may return; far above what the supported ones need. */
    private static final int MAX_ATTRLIST = 4096;

    private final Nfs4Context ctx;

    Attributes4(Nfs4Context ctx) {
        this.ctx = ctx;
    }

    /** An object whose attributes are being reported. */
    record Subject(FileStat stat, NfsFh3 handle, int rdattrError) {
    }

    /**
     * fattr4 with the attributes of {@code requested} that are supported, as octets ready to be
     * written (bitmap and attrlist4). File-system figures (space_*) are read only if asked.
     */
    byte[] encode(Bitmap4 requested, Subject s) throws IOException {
        Bitmap4 answered = requested.and(SUPPORTED);
        ByteBuf v = Unpooled.buffer(256);
        FileStat st = s.stat();
        FileStore store = null;
        for (int bit : answered.bits()) {
            switch (bit) {
                case FATTR4_SUPPORTED_ATTRS -> bitmap(v, SUPPORTED);
                case FATTR4_TYPE -> v.writeInt(st.type().value());
                case FATTR4_FH_EXPIRE_TYPE -> v.writeInt(FH4_PERSISTENT);
                case FATTR4_CHANGE -> v.writeLong(change(st));
                case FATTR4_SIZE -> v.writeLong(st.size());
                case FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT, FATTR4_UNIQUE_HANDLES, FATTR4_CANSETTIME,
                     FATTR4_CASE_PRESERVING, FATTR4_CHOWN_RESTRICTED, FATTR4_HOMOGENEOUS, FATTR4_NO_TRUNC ->
                        v.writeInt(1);
                case FATTR4_NAMED_ATTR, FATTR4_CASE_INSENSITIVE -> v.writeInt(0);
                case FATTR4_FSID -> v.writeLong(ctx.base().export().id()).writeLong(0);
                case FATTR4_LEASE_TIME -> v.writeInt(ctx.settings().leaseSeconds());
                case FATTR4_RDATTR_ERROR -> v.writeInt(s.rdattrError());
                case FATTR4_FILEHANDLE -> opaque(v, s.handle().data());
                case FATTR4_FILEID, FATTR4_MOUNTED_ON_FILEID -> v.writeLong(st.ino());
                case FATTR4_MAXFILESIZE -> v.writeLong(Long.MAX_VALUE);
                case FATTR4_MAXLINK -> v.writeInt(65000);
                case FATTR4_MAXNAME -> v.writeInt(Nfs3Limits.NAME_MAX);
                case FATTR4_MAXREAD -> v.writeLong(ctx.base().limits().maxRead());
                case FATTR4_MAXWRITE -> v.writeLong(ctx.base().limits().maxWrite());
                case FATTR4_MODE -> v.writeInt(st.mode() & 07777);
                case FATTR4_NUMLINKS -> v.writeInt(st.nlink());
                case FATTR4_OWNER -> opaque(v, Integer.toUnsignedString(st.uid()).getBytes(StandardCharsets.UTF_8));
                case FATTR4_OWNER_GROUP -> opaque(v, Integer.toUnsignedString(st.gid()).getBytes(StandardCharsets.UTF_8));
                case FATTR4_RAWDEV -> v.writeInt(major(st.rdev())).writeInt(minor(st.rdev()));
                case FATTR4_SPACE_AVAIL, FATTR4_SPACE_FREE, FATTR4_SPACE_TOTAL -> {
                    if (store == null) {
                        store = ctx.base().exportStore();
                    }
                    v.writeLong(bit == FATTR4_SPACE_AVAIL ? store.getUsableSpace()
                            : bit == FATTR4_SPACE_FREE ? store.getUnallocatedSpace() : store.getTotalSpace());
                }
                case FATTR4_SPACE_USED -> v.writeLong((st.size() + 4095) & ~4095L);
                case FATTR4_TIME_ACCESS -> time(v, st.atime());
                case FATTR4_TIME_DELTA -> v.writeLong(0).writeInt(1);
                case FATTR4_TIME_METADATA -> time(v, st.ctime());
                case FATTR4_TIME_MODIFY -> time(v, st.mtime());
                case FATTR4_SUPPATTR_EXCLCREAT -> bitmap(v, EXCLUSIVE_CREATE);
                default -> answered = answered.andNot(Bitmap4.of(bit)); // write-only (time_*_set): never reported
            }
        }
        ByteBuf out = Unpooled.buffer(answered.encodedLength() + 4 + v.readableBytes() + 3);
        bitmap(out, answered);
        out.writeInt(v.readableBytes()).writeBytes(v);
        out.writeZero((4 - v.readableBytes() % 4) % 4);
        byte[] octets = new byte[out.readableBytes()];
        out.readBytes(octets);
        return octets;
    }

    /** The change attribute (RFC 8881 §5.8.1.4): the ctime in nanoseconds, which every change moves. */
    static long change(FileStat st) {
        return st.ctime();
    }

    private static void bitmap(ByteBuf v, Bitmap4 b) {
        int[] w = b.words();
        v.writeInt(w.length);
        for (int x : w) {
            v.writeInt(x);
        }
    }

    private static void opaque(ByteBuf v, byte[] b) {
        v.writeInt(b.length).writeBytes(b).writeZero((4 - b.length % 4) % 4);
    }

    private static void time(ByteBuf v, long nanos) {
        v.writeLong(Math.floorDiv(nanos, 1_000_000_000L)).writeInt((int) Math.floorMod(nanos, 1_000_000_000L));
    }

    private static int major(long dev) {
        return (int) (((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL));
    }

    private static int minor(long dev) {
        return (int) ((dev & 0xff) | ((dev >>> 12) & ~0xffL));
    }

    /** Attributes to set: as sattr3 for the NFSv3 machinery, and which were given. */
    record ToSet(Sattr3 sattr, Bitmap4 given) {
        static final ToSet NONE = new ToSet(Sattr3.NONE, Bitmap4.EMPTY);

        /**
         * What of {@link #given} is set on an object {@code caller} has just made: owner and
         * owner_group only for root ({@code AttributeOps.apply} drops others', as knfsd does).
         */
        Bitmap4 setOnCreation(Caller caller) {
            return caller.isRoot() ? given : given.andNot(Bitmap4.of(FATTR4_OWNER, FATTR4_OWNER_GROUP));
        }
    }

    /** Decodes an fattr4 of attributes to set (SETATTR, CREATE, OPEN). */
    static ToSet decodeToSet(XdrDecoder in) {
        Bitmap4 mask = Bitmap4.decode(in);
        byte[] vals = in.readOpaque(MAX_ATTRLIST);
        Bitmap4 unsupported = mask.andNot(SUPPORTED);
        if (!unsupported.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_ATTRNOTSUPP, "cannot set " + unsupported);
        }
        if (!mask.andNot(SETTABLE).isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "read-only attributes in " + mask);
        }
        XdrDecoder v = new XdrDecoder(Unpooled.wrappedBuffer(vals));
        Integer mode = null;
        Integer uid = null;
        Integer gid = null;
        Long size = null;
        SetTime3 atime = SetTime3.DONT_CHANGE;
        SetTime3 mtime = SetTime3.DONT_CHANGE;
        try {
            for (int bit : mask.bits()) {
                switch (bit) {
                    case FATTR4_SIZE -> size = v.readHyper();
                    case FATTR4_MODE -> mode = v.readInt() & 07777;
                    case FATTR4_OWNER -> uid = id(v.readOpaque(NFS4_OPAQUE_LIMIT));
                    case FATTR4_OWNER_GROUP -> gid = id(v.readOpaque(NFS4_OPAQUE_LIMIT));
                    case FATTR4_TIME_ACCESS_SET -> atime = setTime(v);
                    case FATTR4_TIME_MODIFY_SET -> mtime = setTime(v);
                    default -> throw new Nfs4Exception(NFS4ERR_INVAL, "attribute " + bit);
                }
            }
        } catch (XdrException e) {
            throw new Nfs4Exception(NFS4ERR_BADXDR, "attribute values: " + e.getMessage());
        }
        if (!v.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_BADXDR, v.remaining() + " octets after the attribute values");
        }
        return new ToSet(new Sattr3(mode, uid, gid, size, atime, mtime), mask);
    }

    private static SetTime3 setTime(XdrDecoder v) {
        int how = v.readEnum();
        if (how == SET_TO_SERVER_TIME4) {
            return SetTime3.SERVER_TIME;
        }
        if (how != SET_TO_CLIENT_TIME4) {
            throw new Nfs4Exception(NFS4ERR_BADXDR, "time_how4 " + how);
        }
        long seconds = v.readHyper();
        long nanos = v.readUnsignedInt();
        if (nanos >= 1_000_000_000L || seconds < 0 || seconds > 0xFFFF_FFFFL) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "time " + seconds + "." + nanos);
        }
        return SetTime3.client(new NfsTime3(seconds, nanos));
    }

    /**
     * An owner or owner_group string as a uid or gid: only RFC 8881 §5.9's numeric form — decimal
     * digits, no sign, no leading zero — is an id. Anything else is NFS4ERR_BADOWNER: a
     * user@domain name needs an id mapper this server does not have, and a string of digits
     * beyond 32 bits, or 4294967295 ((uid_t) -1, which chown(2) takes as "leave unchanged" and
     * knfsd refuses as an invalid id), names no id.
     */
    private static int id(byte[] utf8) {
        boolean numeric = utf8.length > 0 && utf8.length <= 10 && (utf8[0] != '0' || utf8.length == 1);
        long id = 0;
        for (int i = 0; numeric && i < utf8.length; i++) {
            numeric = utf8[i] >= '0' && utf8[i] <= '9';
            id = id * 10 + (utf8[i] - '0');
        }
        if (!numeric || id >= 0xFFFF_FFFFL) {
            throw new Nfs4Exception(NFS4ERR_BADOWNER, "not a numeric id: " + new String(utf8, StandardCharsets.UTF_8));
        }
        return (int) id;
    }
}
