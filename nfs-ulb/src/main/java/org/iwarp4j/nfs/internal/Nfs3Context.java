package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.WccAttr;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;

/**
 * What every NFSv3 operation of one export shares: the export, its file handles, the open-file
 * cache, the limits and the write verifier (RFC 1813 §3.3.7), which is random per server start so
 * that a client learns of a restart and resends uncommitted writes.
 */
public final class Nfs3Context implements AutoCloseable {

    private static final boolean RUNNING_AS_ROOT = "root".equals(System.getProperty("user.name"));

    private final Export export;
    private final FileHandles handles;
    private final OpenFiles openFiles;
    private final Nfs3Limits limits;
    private final long writeVerifier = new SecureRandom().nextLong();

    public Nfs3Context(Export export, Nfs3Limits limits) {
        this(export, limits, new FileHandles(export));
    }

    /** With the file handles given: tests count the file-system calls a request costs. */
    Nfs3Context(Export export, Nfs3Limits limits, FileHandles handles) {
        this.export = export;
        this.handles = handles;
        this.openFiles = new OpenFiles(64);
        this.limits = limits;
    }

    public Export export() {
        return export;
    }

    public FileHandles handles() {
        return handles;
    }

    public OpenFiles openFiles() {
        return openFiles;
    }

    public Nfs3Limits limits() {
        return limits;
    }

    public long writeVerifier() {
        return writeVerifier;
    }

    public FileHandles.Resolved resolve(NfsFh3 fh) {
        return handles.resolve(fh);
    }

    /** A handle that must name a directory (NFS3ERR_NOTDIR otherwise). */
    public FileHandles.Resolved resolveDirectory(NfsFh3 fh) {
        FileHandles.Resolved r = handles.resolve(fh);
        if (!r.isDirectory()) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOTDIR, "not a directory: " + r.path());
        }
        return r;
    }

    /**
     * The entry {@code name} of {@code dir}, for operations that create or remove it: "." and ".."
     * are refused with {@code dotStatus}, a name with '/' or NUL is GARBAGE_ARGS (as Linux decodes
     * it), and one longer than NAME_MAX octets is NFS3ERR_NAMETOOLONG. The result is always directly
     * inside {@code dir}.
     */
    public Path child(FileHandles.Resolved dir, String name, Nfs3Status dotStatus) {
        checkName(name);
        if (name.equals(".") || name.equals("..")) {
            throw new NfsException(dotStatus, "'" + name + "' in " + dir.path());
        }
        Path child = dir.path().resolve(name);
        if (!child.getParent().equals(dir.path())) {
            throw new NfsException(Nfs3Status.NFS3ERR_ACCES, "escapes its directory: " + name);
        }
        return child;
    }

    /**
     * Linux refuses a filename3 containing '/' or NUL while decoding the arguments, so the client
     * gets GARBAGE_ARGS; the server's procedures call this right after decoding.
     */
    public static DirOpArgs3 checkSyntax(DirOpArgs3 args) {
        String name = args.name();
        if (name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new RpcGarbageArgsException("file name with '/' or NUL");
        }
        return args;
    }

    /** LOOKUP's view of a name: "." is the directory, ".." its parent, never above the export root. */
    public Path lookupPath(FileHandles.Resolved dir, String name) {
        checkName(name);
        if (name.equals(".")) {
            return dir.path();
        }
        if (name.equals("..")) {
            return dir.path().equals(export.root()) ? export.root() : dir.path().getParent();
        }
        return child(dir, name, Nfs3Status.NFS3ERR_INVAL);
    }

    private static void checkName(String name) {
        if (name.isEmpty()) {
            throw new NfsException(Nfs3Status.NFS3ERR_NOENT, "empty name");
        }
        if (name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new NfsException(Nfs3Status.NFS3ERR_ACCES, "file name with '/' or NUL");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > Nfs3Limits.NAME_MAX) {
            throw new NfsException(Nfs3Status.NFS3ERR_NAMETOOLONG, "name longer than " + Nfs3Limits.NAME_MAX);
        }
    }

    /** Attributes for a post_op_attr: null when they cannot be read. */
    public Fattr3 attributes(Path path) {
        try {
            return FileStat.of(path).toFattr3(export.id());
        } catch (IOException e) {
            return null;
        }
    }

    public Fattr3 attributes(FileStat stat) {
        return stat.toFattr3(export.id());
    }

    /** pre_op_attr: null when they cannot be read. */
    public WccAttr wccBefore(Path path) {
        try {
            return FileStat.of(path).toWccAttr();
        } catch (IOException e) {
            return null;
        }
    }

    public WccData wcc(WccAttr before, Path path) {
        return new WccData(before, attributes(path));
    }

    /**
     * Gives a new object to the caller's AUTH_SYS uid and gid, as a kernel server does. Only a
     * server running as root can; otherwise objects belong to the server's user.
     */
    public void chownToCaller(Path path, AuthSys caller) {
        if (caller == null || !RUNNING_AS_ROOT) {
            return;
        }
        try {
            Files.setAttribute(path, "unix:uid", caller.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", caller.gid(), LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // the object stays the server's; attributes tell the client who owns it
        }
    }

    @Override
    public void close() {
        openFiles.close();
    }
}
