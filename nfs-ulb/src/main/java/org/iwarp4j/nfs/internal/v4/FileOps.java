package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.nfs.internal.DirectoryListings;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.internal.FileStat;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.internal.Permissions;
import org.iwarp4j.nfs.v3.Access3Args;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Link3Args;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Mkdir3Args;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Args;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.SpecData3;
import org.iwarp4j.nfs.v3.Symlink3Args;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * The file-handle, name and attribute operations (RFC 8881 §18): PUTROOTFH, PUTPUBFH, PUTFH, GETFH,
 * SAVEFH, RESTOREFH, LOOKUP, LOOKUPP, ACCESS, GETATTR, SETATTR, CREATE, REMOVE, RENAME, LINK,
 * READLINK, READDIR, SECINFO and SECINFO_NO_NAME. They run the NFSv3 server's operations (same
 * handles, same access control, same name checks) and answer in NFSv4's terms. The export root
 * is the root of the server's namespace (PUTROOTFH and PUTPUBFH): clients mount {@code host:/}.
 */
final class FileOps {

    /** The longest link text CREATE takes and READLINK answers (Linux's PATH_MAX). */
    private static final int LINK_TEXT_MAX = 4096;

    private final Nfs4Context ctx;
    private final Attributes4 attributes;

    FileOps(Nfs4Context ctx, Attributes4 attributes) {
        this.ctx = ctx;
        this.attributes = attributes;
    }

    Result putrootfh(XdrDecoder in, CompoundState st) throws IOException {
        if (!st.caller.admitted()) {
            throw new Nfs4Exception(NFS4ERR_ACCESS, "client " + st.caller.address() + " is not admitted");
        }
        st.setCurrent(ctx.base().handles().rootHandle());
        return Result.ok();
    }

    Result putfh(XdrDecoder in, CompoundState st) {
        byte[] fh = in.readOpaque(NFS4_FHSIZE);
        NfsFh3 handle;
        try {
            handle = new NfsFh3(fh);
        } catch (IllegalArgumentException e) {
            throw new Nfs4Exception(NFS4ERR_BADHANDLE, "handle of " + fh.length + " octets");
        }
        st.setCurrent(handle, ctx.base().resolve(handle, st.caller));
        return Result.ok();
    }

    Result getfh(XdrDecoder in, CompoundState st) {
        NfsFh3 fh = st.currentFh();
        return Result.ok(out -> out.writeOpaque(fh.data(), NFS4_FHSIZE));
    }

    Result savefh(XdrDecoder in, CompoundState st) {
        st.savedFh = st.currentFh();
        st.savedStateid = st.currentStateid;
        return Result.ok();
    }

    Result restorefh(XdrDecoder in, CompoundState st) {
        if (st.savedFh == null) {
            throw new Nfs4Exception(NFS4ERR_RESTOREFH, "no saved file handle");
        }
        st.currentFh = st.savedFh;
        st.currentStateid = st.savedStateid;
        return Result.ok();
    }

    /**
     * A component4 (RFC 8881 §14.2): strict UTF-8 (NFS4ERR_INVAL otherwise), not empty
     * (NFS4ERR_INVAL), no '/' or NUL and not "." or ".." (NFS4ERR_BADNAME), at most NAME_MAX
     * octets (NFS4ERR_NAMETOOLONG).
     */
    static String component(XdrDecoder in) {
        byte[] octets = in.readOpaque(NFS4_OPAQUE_LIMIT * 4);
        if (octets.length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "empty name");
        }
        if (octets.length > Nfs3Limits.NAME_MAX) {
            throw new Nfs4Exception(NFS4ERR_NAMETOOLONG, "name of " + octets.length + " octets");
        }
        String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(octets)).toString();
        } catch (CharacterCodingException e) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "name not UTF-8");
        }
        if (name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || name.equals(".") || name.equals("..")) {
            throw new Nfs4Exception(NFS4ERR_BADNAME, "bad name '" + name + "'");
        }
        return name;
    }

    private static void check(Nfs3Status s) {
        if (!s.isOk()) {
            throw new Nfs4Exception(Nfs4Errors.of(s), s.name());
        }
    }

    Result lookup(XdrDecoder in, CompoundState st) {
        String name = component(in);
        FileHandles.Resolved dir = st.currentDirectory();
        Lookup3Res r = ctx.names3().lookup(new DirOpArgs3(st.currentFh(), name), st.caller);
        check(r.status());
        st.setCurrent(r.object());
        return Result.ok();
    }

    /** LOOKUPP: the parent; at the root of the namespace NFS4ERR_NOENT (RFC 8881 §18.14.3). */
    Result lookupp(XdrDecoder in, CompoundState st) {
        FileHandles.Resolved dir = st.currentDirectory();
        if (dir.path().equals(ctx.base().export().root())) {
            throw new Nfs4Exception(NFS4ERR_NOENT, "LOOKUPP at the root");
        }
        Lookup3Res r = ctx.names3().lookup(new DirOpArgs3(st.currentFh(), ".."), st.caller);
        check(r.status());
        st.setCurrent(r.object());
        return Result.ok();
    }

    /** ACCESS (RFC 8881 §18.1): the six bits of RFC 8881 are supported, by the NFSv3 server's rules. */
    Result access(XdrDecoder in, CompoundState st) {
        int asked = in.readInt();
        Access3Res r = ctx.attributes3().access(new Access3Args(st.currentFh(), asked & 0x3F), st.caller);
        check(r.status());
        int supported = asked & 0x3F;
        int granted = r.access();
        return Result.ok(out -> out.writeInt(supported).writeInt(granted));
    }

    Result getattr(XdrDecoder in, CompoundState st) throws IOException {
        Bitmap4 asked = Bitmap4.decode(in);
        FileHandles.Resolved r = st.current();
        byte[] fattr = attributes.encode(asked, new Attributes4.Subject(r.stat(), st.currentFh(), NFS4_OK));
        return Result.ok(out -> out.writeFixedOpaque(fattr));
    }

    /**
     * SETATTR (RFC 8881 §18.30). A size change with a real stateid needs an open for writing
     * (NFS4ERR_OPENMODE); the answer carries the attributes set, also on failure (none then).
     * What the NFSv3 server cannot set on this object (the times of a FIFO or a device, which
     * java.nio would open) is NFS4ERR_ATTRNOTSUPP: SETATTR's status for an attribute that cannot
     * be set (§15.2 lists it for SETATTR, not NFS4ERR_NOTSUPP, which is for operations).
     */
    Result setattr(XdrDecoder in, CompoundState st, OpenOps opens) {
        Stateid4 stateid = Stateid4.decode(in);
        Attributes4.ToSet set;
        try {
            set = Attributes4.decodeToSet(in);
        } catch (Nfs4Exception e) {
            return new Result(e.status(), out -> Bitmap4.EMPTY.encode(out));
        }
        try {
            FileHandles.Resolved r = st.current();
            if (set.sattr().size() != null) {
                if (r.isDirectory()) {
                    throw new Nfs4Exception(NFS4ERR_ISDIR, "size of a directory");
                }
                if (r.stat().type() != Ftype3.NF3REG) {
                    throw new Nfs4Exception(NFS4ERR_INVAL, "size of a non-regular file");
                }
                opens.checkIo(st, st.resolveStateid(stateid), r, true);
            }
            WccRes3 res = ctx.attributes3().setattr(new Setattr3Args(st.currentFh(), set.sattr(), null), st.caller);
            if (res.status() == Nfs3Status.NFS3ERR_NOTSUPP) {
                throw new Nfs4Exception(NFS4ERR_ATTRNOTSUPP, "cannot set these attributes of a " + r.stat().type());
            }
            check(res.status());
        } catch (RuntimeException e) {
            return new Result(Nfs4Errors.statusOf(e), out -> Bitmap4.EMPTY.encode(out));
        }
        Bitmap4 given = set.given();
        return Result.ok(given::encode);
    }

    /**
     * CREATE (RFC 8881 §18.4): directories and symbolic links; devices, sockets and FIFOs
     * NFS4ERR_NOTSUPP (java.nio cannot make them). A link's text is taken from a Read chunk when
     * the client sent it in one, as NFSv3 SYMLINK's.
     */
    Result create(XdrDecoder in, CompoundState st) throws IOException {
        int type = in.readEnum();
        String link = null;
        switch (type) {
            case NF4LNK -> {
                // DDP-eligible (RFC 8267 §6.1): the text may come in a Read chunk, the stream then
                // holding only its length word
                ByteBuf text = in.readDdpEligibleOpaque(LINK_TEXT_MAX);
                try {
                    link = text.toString(StandardCharsets.UTF_8);
                } finally {
                    text.release();
                }
            }
            case NF4BLK, NF4CHR -> {
                in.readInt();
                in.readInt();
            }
            case NF4SOCK, NF4FIFO, NF4DIR -> { }
            default -> throw new Nfs4Exception(NFS4ERR_BADTYPE, "CREATE of type " + type);
        }
        String name = component(in);
        Attributes4.ToSet set = Attributes4.decodeToSet(in);
        FileHandles.Resolved dir = st.currentDirectory();
        long before = Attributes4.change(dir.stat());
        DirOpArgs3 where = new DirOpArgs3(st.currentFh(), name);
        Create3Res r = switch (type) {
            case NF4DIR -> ctx.names3().mkdir(new Mkdir3Args(where, set.sattr()), st.caller);
            case NF4LNK -> ctx.names3().symlink(new Symlink3Args(where, set.sattr(), link), st.caller);
            default -> ctx.names3().mknod(new Mknod3Args(where, type == NF4BLK ? Ftype3.NF3BLK
                    : type == NF4CHR ? Ftype3.NF3CHR : type == NF4SOCK ? Ftype3.NF3SOCK : Ftype3.NF3FIFO,
                    set.sattr(), new SpecData3(0, 0)), st.caller);
        };
        check(r.status());
        long after = Attributes4.change(FileStat.of(dir.path()));
        st.setCurrent(r.obj());
        Bitmap4 given = set.given();
        return Result.ok(out -> {
            changeInfo(out, before, after);
            given.encode(out);
        });
    }

    static void changeInfo(XdrEncoder out, long before, long after) {
        out.writeBoolean(false).writeHyper(before).writeHyper(after);
    }

    /**
     * NFS4ERR_GRACE during the grace period (RFC 8881 §8.4.2): REMOVE and RENAME wait it out, as
     * in knfsd's nfsd4_remove/nfsd4_rename. Opens of the previous start that are not reclaimed
     * yet are invisible to the server, so it cannot tell whether a name it would remove or move
     * belongs to a file a client is about to reclaim (removing its last name would destroy the
     * file the client still holds open).
     */
    private void refuseInGrace(String op) {
        synchronized (ctx.lock()) {
            if (ctx.inGrace()) {
                throw new Nfs4Exception(NFS4ERR_GRACE, op + " in the grace period");
            }
        }
    }

    /**
     * A READDIR reply never ends between two entries with the same cookie (names whose hashes
     * collide, which a client can make): the entries sharing the cookie of the first one left out
     * are left out too and start the next reply, as in NFSv3 ({@code DirectoryOps.withoutTrailing}).
     */
    private static void leaveOutCollidingTail(List<byte[]> encoded, List<Long> cookies, long cookie) {
        while (!cookies.isEmpty() && cookies.get(cookies.size() - 1) == cookie) {
            cookies.remove(cookies.size() - 1);
            encoded.remove(encoded.size() - 1);
            encoded.remove(encoded.size() - 1);
        }
    }

    /** An entry's fattr4 that holds only rdattr_error (RFC 8881 §5.8.1.12). */
    private static byte[] rdattrError(int status) {
        return SessionOps.encode(out -> {
            Bitmap4.of(FATTR4_RDATTR_ERROR).encode(out);
            out.writeUnsignedInt(4).writeInt(status);
        });
    }

    /** REMOVE (RFC 8881 §18.25): a file or an empty directory; NFS4ERR_GRACE in the grace period. */
    Result remove(XdrDecoder in, CompoundState st) throws IOException {
        String name = component(in);
        refuseInGrace("REMOVE");
        FileHandles.Resolved dir = st.currentDirectory();
        long before = Attributes4.change(dir.stat());
        Path target = dir.path().resolve(name);
        DirOpArgs3 what = new DirOpArgs3(st.currentFh(), name);
        boolean isDir = Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS);
        WccRes3 r = isDir ? ctx.names3().rmdir(what, st.caller) : ctx.names3().remove(what, st.caller);
        check(r.status());
        long after = Attributes4.change(FileStat.of(dir.path()));
        return Result.ok(out -> changeInfo(out, before, after));
    }

    /** RENAME (RFC 8881 §18.26): from the saved directory to the current one; NFS4ERR_GRACE in the grace period. */
    Result rename(XdrDecoder in, CompoundState st) throws IOException {
        String from = component(in);
        String to = component(in);
        refuseInGrace("RENAME");
        if (st.savedFh == null) {
            throw new Nfs4Exception(NFS4ERR_NOFILEHANDLE, "no saved file handle");
        }
        FileHandles.Resolved target = st.currentDirectory();
        FileHandles.Resolved source = ctx.base().resolve(st.savedFh, st.caller);
        if (!source.isDirectory()) {
            throw new Nfs4Exception(NFS4ERR_NOTDIR, "saved handle is no directory");
        }
        long sb = Attributes4.change(source.stat());
        long tb = Attributes4.change(target.stat());
        Rename3Res r = ctx.names3().rename(new Rename3Args(new DirOpArgs3(st.savedFh, from),
                new DirOpArgs3(st.currentFh(), to)), st.caller);
        check(r.status());
        long sa = Attributes4.change(FileStat.of(source.path()));
        long ta = Attributes4.change(FileStat.of(target.path()));
        return Result.ok(out -> {
            changeInfo(out, sb, sa);
            changeInfo(out, tb, ta);
        });
    }

    /** LINK (RFC 8881 §18.9): the saved handle's object gets a new name in the current directory. */
    Result link(XdrDecoder in, CompoundState st) throws IOException {
        String name = component(in);
        if (st.savedFh == null) {
            throw new Nfs4Exception(NFS4ERR_NOFILEHANDLE, "no saved file handle");
        }
        FileHandles.Resolved dir = st.currentDirectory();
        FileHandles.Resolved source = ctx.base().resolve(st.savedFh, st.caller);
        if (source.isDirectory()) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "hard link to a directory");
        }
        long before = Attributes4.change(dir.stat());
        Link3Res r = ctx.names3().link(new Link3Args(st.savedFh, new DirOpArgs3(st.currentFh(), name)), st.caller);
        check(r.status());
        long after = Attributes4.change(FileStat.of(dir.path()));
        return Result.ok(out -> changeInfo(out, before, after));
    }

    /** READLINK (RFC 8881 §18.24); the link text is the DDP-eligible result of RFC 8267 §6.1. */
    Result readlink(XdrDecoder in, CompoundState st) {
        FileHandles.Resolved r = st.current();
        if (r.isDirectory()) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "READLINK of a directory");
        }
        if (r.stat().type() != Ftype3.NF3LNK) {
            throw new Nfs4Exception(NFS4ERR_WRONG_TYPE, "not a symbolic link");
        }
        Readlink3Res res = ctx.names3().readlink(st.currentFh(), st.caller);
        check(res.status());
        byte[] text = res.data().getBytes(StandardCharsets.UTF_8);
        return Result.ok(out -> out.writeDdpEligibleOpaque(io.netty.buffer.Unpooled.wrappedBuffer(text), LINK_TEXT_MAX));
    }

    /** SECINFO and SECINFO_NO_NAME (RFC 8881 §18.29, §18.45): AUTH_SYS; both consume the current handle. */
    Result secinfo(XdrDecoder in, CompoundState st) {
        String name = component(in);
        FileHandles.Resolved dir = st.currentDirectory();
        Lookup3Res r = ctx.names3().lookup(new DirOpArgs3(st.currentFh(), name), st.caller);
        check(r.status());
        st.setCurrent(null);
        return Result.ok(FileOps::flavors);
    }

    Result secinfoNoName(XdrDecoder in, CompoundState st) {
        int style = in.readEnum();
        if (style != 0 && style != 1) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "secinfo_style4 " + style);
        }
        FileHandles.Resolved r = st.current();
        if (style == 1 && r.path().equals(ctx.base().export().root())) {
            throw new Nfs4Exception(NFS4ERR_NOENT, "parent of the root");
        }
        st.setCurrent(null);
        return Result.ok(FileOps::flavors);
    }

    private static void flavors(XdrEncoder out) {
        out.writeUnsignedInt(1).writeInt(AUTH_SYS);
    }

    /**
     * READDIR (RFC 8881 §18.23): the NFSv3 server's name-hash cookies and directory snapshots
     * ({@link DirectoryListings}: the directory is read at a listing's first page unless it is
     * unchanged since its snapshot, each further page costs only itself; the cookie verifier names
     * the snapshot, and one no longer held gets the directory's current names rather than
     * NFS4ERR_BAD_COOKIE, since a name-hash cookie stays meaningful), no "." or "..", the asked attributes per entry (rdattr_error if an entry vanished
     * meanwhile, else the entry is left out, and past DirectoryListings.MAX_VANISHED such the
     * directory is read again). Listing needs read permission on the directory; attributes and
     * handles also search permission, without which each entry carries only rdattr_error
     * NFS4ERR_ACCESS, or the READDIR fails with NFS4ERR_ACCESS if rdattr_error was not asked for
     * (§18.23.3, as knfsd); a READDIR asking for no attribute needs no search permission. A file
     * handle is made only when FATTR4_FILEHANDLE is asked for, and only for the entries answered
     * (an entry is sized with {@link FileHandles#preview}): a handle makes the server remember the
     * object, which a plain listing, or an entry that did not fit, need not.
     * maxcount bounds the whole result, and in a session also the room the reply limit leaves (RFC
     * 8881 §18.46.3); if not even one entry fits, NFS4ERR_TOOSMALL. Cookies 1 and 2, and cookie 0
     * with a verifier other than 0, are NFS4ERR_BAD_COOKIE (RFC 8881 §18.23.3: 1 and 2 are
     * reserved, and a listing begins with cookie 0 and a zero verifier), as knfsd answers.
     */
    Result readdir(XdrDecoder in, CompoundState st) throws IOException {
        long cookie = in.readHyper();
        long verifier = in.readHyper();
        in.readUnsignedInt(); // dircount: a hint
        // in a session maxcount is also bounded by what the reply limit leaves (knfsd does the same)
        long maxcount = Math.min(in.readUnsignedInt(), st.replyRoom());
        Bitmap4 asked = Bitmap4.decode(in);
        // RFC 8881 §18.23.3: cookies 1 and 2 are reserved, and a listing starts with cookie 0 and
        // a zero verifier; knfsd refuses the other combinations as bad cookies, and so do we
        if (cookie == 1 || cookie == 2) {
            throw new Nfs4Exception(NFS4ERR_BAD_COOKIE, "reserved cookie " + cookie);
        }
        if (cookie == 0 && verifier != 0) {
            throw new Nfs4Exception(NFS4ERR_BAD_COOKIE, "cookie 0 with verifier " + Long.toHexString(verifier));
        }
        FileHandles.Resolved dir = st.currentDirectory();
        Permissions.require(st.caller, dir.stat(), Permissions.READ, dir.path());
        // an entry's attributes and handle are what a LOOKUP of its name would give, so they need
        // search permission on the directory as LOOKUP does (knfsd looks every entry up); the
        // names alone need only read permission, as readdir(2) and NFSv3's READDIR
        boolean search = asked.isEmpty() || Permissions.permits(st.caller, dir.stat(), Permissions.EXECUTE);
        DirectoryListings.Listing listing = ctx.base().listings().listing(dir.path(), dir.stat(), cookie, verifier);
        boolean handles = asked.isSet(FATTR4_FILEHANDLE);
        long budget = maxcount - 8 - 4 - 4; // verifier, value_follows after the last entry, eof
        List<byte[]> encoded = new ArrayList<>();
        List<Long> cookies = new ArrayList<>(); // of the entries in encoded, one per pair
        boolean eof = true;
        long last = cookie;
        int vanished = 0;
        for (int i = cookie == 0 ? 0 : listing.after(cookie); i < listing.size(); i++) {
            String n = listing.name(i);
            Path path = dir.path().resolve(n);
            byte[] attrs;
            FileStat stat = null;
            NfsFh3 handle = null;
            if (!search) {
                // RFC 8881 §18.23.3: an entry whose attributes cannot be had carries the error in
                // rdattr_error if the client asked for that attribute; if not, the READDIR fails
                if (!asked.isSet(FATTR4_RDATTR_ERROR)) {
                    throw new Nfs4Exception(NFS4ERR_ACCESS, st.caller + " may not search " + dir.path());
                }
                attrs = rdattrError(NFS4ERR_ACCESS);
            } else {
                try {
                    stat = FileStat.of(path);
                    // sized with the handle the entry would get, which is made only once the entry fits
                    handle = handles ? ctx.base().handles().preview(path, stat) : null;
                    attrs = attributes.encode(asked, new Attributes4.Subject(stat, handle, NFS4_OK));
                } catch (IOException gone) {
                    handle = null;
                    if (!asked.isSet(FATTR4_RDATTR_ERROR)) {
                        // a snapshot with many gone entries is read again, so a call skips few of them
                        if (++vanished == DirectoryListings.MAX_VANISHED + 1) {
                            listing = ctx.base().listings().reread(dir.path(), listing);
                            i = (last == 0 ? 0 : listing.after(last)) - 1;
                        }
                        continue;
                    }
                    attrs = rdattrError(NFS4ERR_NOENT);
                }
            }
            byte[] name = n.getBytes(StandardCharsets.UTF_8);
            long c = listing.cookie(i);
            byte[] entry = SessionOps.encode(out -> {
                out.writeBoolean(true).writeHyper(c).writeOpaque(name, Integer.MAX_VALUE);
            });
            if (entry.length + attrs.length > budget) {
                eof = false;
                leaveOutCollidingTail(encoded, cookies, c);
                break;
            }
            if (handle != null) {
                NfsFh3 made = ctx.base().handles().handleOf(path, stat, dir);
                if (!made.equals(handle)) { // the inode was issued or moved meanwhile: size it again
                    attrs = attributes.encode(asked, new Attributes4.Subject(stat, made, NFS4_OK));
                    if (entry.length + attrs.length > budget) {
                        eof = false;
                        leaveOutCollidingTail(encoded, cookies, c);
                        break;
                    }
                }
            }
            budget -= entry.length + attrs.length;
            encoded.add(entry);
            encoded.add(attrs);
            cookies.add(c);
            last = c;
        }
        if (encoded.isEmpty() && !eof) {
            throw new Nfs4Exception(NFS4ERR_TOOSMALL, "maxcount " + maxcount);
        }
        boolean end = eof;
        long answer = listing.verifier();
        return Result.ok(out -> {
            out.writeHyper(answer);
            for (byte[] b : encoded) {
                out.writeFixedOpaque(b);
            }
            out.writeBoolean(false).writeBoolean(end);
        });
    }
}
