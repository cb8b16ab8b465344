package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.WccAttr;
import org.iwarp4j.nfs.v3.WccData;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;

/**
 * What every NFSv3 operation of one export shares: the export, its access options, its file
 * handles, the open-file cache, the limits and the write verifier (RFC 1813 §3.3.7), which is
 * random per server start, and new after any failed write or force of file data, so that a client
 * learns of a restart or a lost write-back and resends uncommitted writes ({@link WriteVerifier}).
 *
 * <p>Access control follows knfsd's order: the handle is resolved and the client's address
 * checked first (an address the export does not admit gets NFS3ERR_ACCES for every call but NULL,
 * whatever handle it presents), then a read-only export refuses any change with NFS3ERR_ROFS, then
 * the {@link Permissions} of the squashed {@link Caller} decide.
 */
public final class Nfs3Context implements AutoCloseable {

    private static final boolean RUNNING_AS_ROOT = "root".equals(System.getProperty("user.name"));

    private final Export export;
    private final ExportOptions options;
    private final FileHandles handles;
    private final DirectoryListings listings;
    private final OpenFiles openFiles;
    /** Orders path-based calls against changes of names (see {@link NamespaceLock}). */
    private final NamespaceLock namespace = new NamespaceLock();
    /** Makes changed names and attributes stable before the reply (see {@link MetadataCommits}). */
    private final MetadataCommits metadata = new MetadataCommits();
    private final Nfs3Limits limits;
    /**
     * The buffers READ data is read into, whatever the transport and NFS version: up to
     * {@link #KEPT_READ_BUFFERS} of at most 1 MiB kept for the server's life and lent again once
     * the transport has sent the data, larger or further ones allocated per READ.
     */
    private final org.iwarp4j.rpcrdma.internal.ReadSinks readBuffers = new org.iwarp4j.rpcrdma.internal.ReadSinks(
            org.iwarp4j.rpcrdma.internal.DataMemory.ALLOCATOR, KEPT_READ_BUFFERS, 1 << 20);
    private final WriteVerifier writeVerifier = new WriteVerifier();
    /** The export root's file store, looked up once: see {@link #exportStore()}. */
    private volatile FileStore exportStore;
    private final AtomicInteger exportStoreLookups = new AtomicInteger();

    /**
     * READ buffers a server keeps (16 MiB at most, whatever its clients do): twice the 8 READs
     * of 1 MiB a client typically keeps in flight. Allocating each READ's 1 MiB afresh had the
     * allocator create, zero and page-fault-in a new 8 MiB chunk about every third READ.
     */
    static final int KEPT_READ_BUFFERS = 16;

    public Nfs3Context(Export export, ExportOptions options, Nfs3Limits limits) {
        this(export, options, limits, new FileHandles(export));
    }

    /**
     * With the file handles given (how many inodes they remember; tests count the file-system
     * calls a request costs through them).
     */
    public Nfs3Context(Export export, ExportOptions options, Nfs3Limits limits, FileHandles handles) {
        this(export, options, limits, handles, new DirectoryListings());
    }

    /** With the file handles and the directory-listing cache given (how many names it holds). */
    public Nfs3Context(Export export, ExportOptions options, Nfs3Limits limits, FileHandles handles,
            DirectoryListings listings) {
        this.export = export;
        this.options = options;
        this.handles = handles;
        this.listings = listings;
        this.openFiles = new OpenFiles(64, namespace);
        this.limits = limits;
    }

    public Export export() {
        return export;
    }

    /**
     * The file store of the export's root, for NFSv4's space attributes. Looked up once: on Linux
     * {@code Files.getFileStore} resolves the path and parses the mount table, and READDIR asks for
     * the attributes of every entry, so a per-entry lookup let one reply cost tens of thousands
     * of mount-table reads. Its figures ({@code getUsableSpace} and the like) are read afresh
     * at each call, one statvfs each.
     */
    public FileStore exportStore() throws IOException {
        FileStore store = exportStore;
        if (store == null) {
            exportStoreLookups.incrementAndGet();
            store = Files.getFileStore(export.root());
            exportStore = store;
        }
        return store;
    }

    /** How often the export's file store was looked up (a test seam: once, whatever the calls). */
    public int exportStoreLookups() {
        return exportStoreLookups.get();
    }

    public ExportOptions options() {
        return options;
    }

    /** Whether new objects can be given to their creator (the server runs as root). */
    public static boolean canChown() {
        return RUNNING_AS_ROOT;
    }

    /** Whom a call acts as, under this export's options. */
    public Caller caller(RpcCallContext call) {
        return Caller.of(call, options);
    }

    public FileHandles handles() {
        return handles;
    }

    /** Snapshots of directories that READDIR pages through (NFSv3 and NFSv4 share them). */
    public DirectoryListings listings() {
        return listings;
    }

    public OpenFiles openFiles() {
        return openFiles;
    }

    /** What an operation changed, forced before its reply. */
    public MetadataCommits metadata() {
        return metadata;
    }

    /** The lock every operation on paths holds, shared or (to change names) exclusively. */
    public NamespaceLock namespace() {
        return namespace;
    }

    public Nfs3Limits limits() {
        return limits;
    }

    /** The write verifier now (what a WRITE or COMMIT answers is decided by {@link #verifier()}). */
    public long writeVerifier() {
        return writeVerifier.current();
    }

    /** The write verifier, and the writes and forces of file data that change it. */
    public WriteVerifier verifier() {
        return writeVerifier;
    }

    /**
     * The object a handle names, for a caller whose address the export admits. A handle is no
     * secret (it can be guessed or overheard), so the address is checked on every call, not only
     * at MNT; a caller outside the client list gets NFS3ERR_ACCES ("the caller does not have the
     * correct permission", RFC 1813 §2.6) before the handle is even looked at. knfsd, whose export
     * table is keyed by client, finds no export for such a caller and refuses the call too;
     * ACCES says why without making a client retry.
     */
    public FileHandles.Resolved resolve(NfsFh3 fh, Caller caller) {
        if (!caller.admitted()) {
            throw new NfsException(Nfs3Status.NFS3ERR_ACCES, "client " + caller.address() + " is not admitted");
        }
        return handles.resolve(fh);
    }

    /** A handle that must name a directory (NFS3ERR_NOTDIR otherwise). */
    public FileHandles.Resolved resolveDirectory(NfsFh3 fh, Caller caller) {
        FileHandles.Resolved r = resolve(fh, caller);
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

    /** NFS3ERR_ROFS on a read-only export (before any permission check, as knfsd's nfsd_permission). */
    public void requireWritable() {
        if (options.readOnly()) {
            throw new NfsException(Nfs3Status.NFS3ERR_ROFS, "read-only export " + export.name());
        }
    }

    /**
     * Adding, removing or renaming entries of {@code dir}: a writable export, and write and search
     * permission on the directory (NFS3ERR_ACCES).
     */
    public void requireDirectoryChange(FileHandles.Resolved dir, Caller caller) {
        requireWritable();
        Permissions.require(caller, dir.stat(), Permissions.WRITE | Permissions.EXECUTE, dir.path());
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
     * The attributes of a resolved file read again by its path, for an operation that does not
     * hold the {@link NamespaceLock} (READ, WRITE, COMMIT after their I/O): null if the path names
     * another inode now, so that they never describe a file the handle does not name.
     */
    public Fattr3 attributes(FileHandles.Resolved file) {
        try {
            FileStat now = FileStat.of(file.path());
            return now.ino() == file.stat().ino() && now.dev() == file.stat().dev() ? now.toFattr3(export.id()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** wcc_data after an operation that does not hold the {@link NamespaceLock}: see {@link #attributes(FileHandles.Resolved)}. */
    public WccData wcc(WccAttr before, FileHandles.Resolved file) {
        return new WccData(before, attributes(file));
    }

    /**
     * Gives a new object to its creator, as a kernel server does: the caller's (squashed) uid, and
     * its gid — or the directory's gid if the directory is setgid (BSD group semantics, as Linux
     * does). Only a server running as root can; otherwise objects belong to the server's user.
     */
    public void chownToCaller(Path path, Caller caller, FileStat dir) {
        if (!RUNNING_AS_ROOT) {
            return;
        }
        int gid = (dir.mode() & 02000) != 0 ? dir.gid() : caller.gid();
        try {
            Files.setAttribute(path, "unix:uid", caller.uid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // the object stays the server's; attributes tell the client who owns it
        }
    }

    /**
     * A buffer for {@code length} octets of READ data (writer index 0, capacity {@code length});
     * the caller releases it, normally through the result that carries it.
     */
    public io.netty.buffer.ByteBuf readBuffer(int length) {
        return readBuffers.take(length).writerIndex(0);
    }

    /** READ buffers kept now (tests). */
    int keptReadBuffers() {
        return readBuffers.kept();
    }

    @Override
    public void close() {
        openFiles.close();
        readBuffers.close();
    }
}
