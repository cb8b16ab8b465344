package org.iwarp4j.nfs;

import static org.iwarp4j.nfs.internal.client.Await.await;
import static org.iwarp4j.nfs.internal.client.PathNames.components;
import static org.iwarp4j.nfs.v3.Nfs3Constants.*;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.iwarp4j.nfs.internal.NfsRdmaSettings;
import org.iwarp4j.nfs.internal.client.DirectoryListing;
import org.iwarp4j.nfs.internal.client.PipelinedDownload;
import org.iwarp4j.nfs.internal.client.PipelinedUpload;
import org.iwarp4j.nfs.internal.client.TransferSizes;
import org.iwarp4j.nfs.mount.MountConstants;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.nfs.v3.Access3Args;
import org.iwarp4j.nfs.v3.Access3Res;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Fsinfo3Res;
import org.iwarp4j.nfs.v3.Fsstat3Res;
import org.iwarp4j.nfs.v3.Getattr3Res;
import org.iwarp4j.nfs.v3.Link3Args;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Mkdir3Args;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Pathconf3Res;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdir3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Readlink3Res;
import org.iwarp4j.nfs.v3.Rename3Args;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.Symlink3Args;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * An NFS version 3 client (RFC 1813): MOUNT over TCP for the root file handle (RFC 8267 §5.1), then
 * NFS over TCP, over RPC-over-RDMA with the RFC 8267 binding ({@link Builder#rdma}), or over any
 * other {@link RpcClientTransport}.
 *
 * <p>Every procedure is available as an asynchronous call returning the RFC's result record
 * (errors are in its status). On top, path-based helpers throw {@link NfsStatusException}:
 * {@link #lookupPath}, {@link #list}, {@link #download} and {@link #upload} move whole files in
 * pipelined chunks of the server's preferred size (FSINFO), writing UNSTABLE and committing, and
 * writing again (FILE_SYNC) if the server's write verifier changed (RFC 1813 §3.3.7). They go on
 * after a short READ or WRITE from where the server stopped; replies that would keep them going for
 * ever (a WRITE of nothing, a READ of nothing before eof, a listing that loops) fail them with
 * NFS3ERR_IO.
 *
 * <pre>{@code
 * try (NfsClient nfs = NfsClient.builder(new InetSocketAddress("server", 2049)).export("/export").connect()) {
 *     nfs.upload(Files.newInputStream(local), "dir/file.bin");
 *     for (EntryPlus3 e : nfs.list("dir")) System.out.println(e.name());
 * }
 * }</pre>
 */
public final class NfsClient implements AutoCloseable {

    private final RpcClient nfs;
    private final NfsFh3 root;
    private final int readSize;
    private final int writeSize;
    private final int window;

    private NfsClient(RpcClient nfs, NfsFh3 root, int readSize, int writeSize, int window) {
        this.nfs = nfs;
        this.root = root;
        this.readSize = readSize;
        this.writeSize = writeSize;
        this.window = window;
    }

    public static Builder builder(InetSocketAddress server) {
        return new Builder(server);
    }

    /** The export's root handle from MNT. */
    public NfsFh3 root() {
        return root;
    }

    /** Octets per READ (the server's rtpref, at most its rtmax and the client's limit; 4096 for one under 1024). */
    public int readSize() {
        return readSize;
    }

    /** Octets per WRITE (the server's wtpref, at most its wtmax and the client's limit; 4096 for one under 1024). */
    public int writeSize() {
        return writeSize;
    }

    /** The transport NFS calls travel on. */
    public RpcClientTransport transport() {
        return nfs.transport();
    }

    // ---- the procedures (RFC 1813 §3.3) ----

    private <T> CompletableFuture<T> call(int procedure, Consumer<XdrEncoder> args, Function<XdrDecoder, T> results) {
        return nfs.call(PROGRAM, VERSION, procedure, args, results);
    }

    public CompletableFuture<Void> nullCall() {
        return call(NFSPROC3_NULL, o -> { }, in -> null);
    }

    public CompletableFuture<Getattr3Res> getattr(NfsFh3 object) {
        return call(NFSPROC3_GETATTR, object::encode, Getattr3Res::decode);
    }

    public CompletableFuture<WccRes3> setattr(Setattr3Args args) {
        return call(NFSPROC3_SETATTR, args::encode, WccRes3::decode);
    }

    public CompletableFuture<Lookup3Res> lookup(NfsFh3 dir, String name) {
        return call(NFSPROC3_LOOKUP, new DirOpArgs3(dir, name)::encode, Lookup3Res::decode);
    }

    public CompletableFuture<Access3Res> access(NfsFh3 object, int access) {
        return call(NFSPROC3_ACCESS, new Access3Args(object, access)::encode, Access3Res::decode);
    }

    public CompletableFuture<Readlink3Res> readlink(NfsFh3 symlink) {
        return call(NFSPROC3_READLINK, symlink::encode, Readlink3Res::decode);
    }

    /** READ; the caller releases the result's data ({@link Read3Res#release()}). */
    public CompletableFuture<Read3Res> read(NfsFh3 file, long offset, int count) {
        return nfs.call(PROGRAM, VERSION, NFSPROC3_READ, new Read3Args(file, offset, count)::encode,
                in -> Read3Res.decode(in, count), Read3Res::release);
    }

    /** WRITE; consumes {@code data}. */
    public CompletableFuture<Write3Res> write(NfsFh3 file, long offset, ByteBuf data, StableHow stable) {
        Write3Args args = new Write3Args(file, offset, data.readableBytes(), stable, data);
        return call(NFSPROC3_WRITE, args::encode, Write3Res::decode);
    }

    public CompletableFuture<Create3Res> create(Create3Args args) {
        return call(NFSPROC3_CREATE, args::encode, Create3Res::decode);
    }

    public CompletableFuture<Create3Res> mkdir(NfsFh3 dir, String name, Sattr3 attributes) {
        return call(NFSPROC3_MKDIR, new Mkdir3Args(new DirOpArgs3(dir, name), attributes)::encode, Create3Res::decode);
    }

    public CompletableFuture<Create3Res> symlink(NfsFh3 dir, String name, String target) {
        return call(NFSPROC3_SYMLINK, new Symlink3Args(new DirOpArgs3(dir, name), Sattr3.NONE, target)::encode,
                Create3Res::decode);
    }

    public CompletableFuture<Create3Res> mknod(Mknod3Args args) {
        return call(NFSPROC3_MKNOD, args::encode, Create3Res::decode);
    }

    public CompletableFuture<WccRes3> remove(NfsFh3 dir, String name) {
        return call(NFSPROC3_REMOVE, new DirOpArgs3(dir, name)::encode, WccRes3::decode);
    }

    public CompletableFuture<WccRes3> rmdir(NfsFh3 dir, String name) {
        return call(NFSPROC3_RMDIR, new DirOpArgs3(dir, name)::encode, WccRes3::decode);
    }

    public CompletableFuture<Rename3Res> rename(NfsFh3 fromDir, String fromName, NfsFh3 toDir, String toName) {
        return call(NFSPROC3_RENAME, new Rename3Args(new DirOpArgs3(fromDir, fromName),
                new DirOpArgs3(toDir, toName))::encode, Rename3Res::decode);
    }

    public CompletableFuture<Link3Res> link(NfsFh3 file, NfsFh3 dir, String name) {
        return call(NFSPROC3_LINK, new Link3Args(file, new DirOpArgs3(dir, name))::encode, Link3Res::decode);
    }

    public CompletableFuture<Readdir3Res> readdir(Readdir3Args args) {
        return call(NFSPROC3_READDIR, args::encode, Readdir3Res::decode);
    }

    public CompletableFuture<Readdirplus3Res> readdirplus(Readdirplus3Args args) {
        return call(NFSPROC3_READDIRPLUS, args::encode, Readdirplus3Res::decode);
    }

    public CompletableFuture<Fsstat3Res> fsstat(NfsFh3 root) {
        return call(NFSPROC3_FSSTAT, root::encode, Fsstat3Res::decode);
    }

    public CompletableFuture<Fsinfo3Res> fsinfo(NfsFh3 root) {
        return call(NFSPROC3_FSINFO, root::encode, Fsinfo3Res::decode);
    }

    public CompletableFuture<Pathconf3Res> pathconf(NfsFh3 object) {
        return call(NFSPROC3_PATHCONF, object::encode, Pathconf3Res::decode);
    }

    public CompletableFuture<Commit3Res> commit(NfsFh3 file, long offset, long count) {
        return call(NFSPROC3_COMMIT, new Commit3Args(file, offset, count)::encode, Commit3Res::decode);
    }

    // ---- path-based helpers ----

    /** The handle of a path relative to the export root ("a/b/c"; "" or "/" is the root). */
    public NfsFh3 lookupPath(String path) {
        NfsFh3 fh = root;
        for (String name : components(path)) {
            Lookup3Res r = await(lookup(fh, name));
            check(r.status(), "LOOKUP " + name);
            fh = r.object();
        }
        return fh;
    }

    /** The attributes of a path. */
    public Fattr3 stat(String path) {
        Getattr3Res r = await(getattr(lookupPath(path)));
        check(r.status(), "GETATTR " + path);
        return r.objAttributes();
    }

    /** The entries of a directory with attributes and handles, "." and ".." left out (READDIRPLUS until eof). */
    public List<EntryPlus3> list(String directory) {
        NfsFh3 dir = lookupPath(directory);
        return DirectoryListing.readAll((cookie, verifier) -> {
            Readdirplus3Res r = await(readdirplus(new Readdirplus3Args(dir, cookie, verifier, 32 * 1024, 128 * 1024)));
            check(r.status(), "READDIRPLUS " + directory);
            return new DirectoryListing.Page<>(r.entries(), r.cookieverf(), r.eof());
        }, EntryPlus3::name, EntryPlus3::cookie, what -> protocolError("READDIRPLUS " + directory, what));
    }

    /** Creates (or truncates) {@code path} and writes everything from {@code in} to it; returns the octets written. */
    public long upload(InputStream in, String path) throws IOException {
        int slash = path.lastIndexOf('/');
        NfsFh3 dir = lookupPath(slash < 0 ? "" : path.substring(0, slash));
        String name = path.substring(slash + 1);
        Create3Res created = await(create(Create3Args.unchecked(new DirOpArgs3(dir, name),
                new Sattr3(0644, null, null, 0L, org.iwarp4j.nfs.v3.SetTime3.DONT_CHANGE,
                        org.iwarp4j.nfs.v3.SetTime3.DONT_CHANGE))));
        check(created.status(), "CREATE " + path);
        NfsFh3 file = created.obj() != null ? created.obj() : lookupPath(path);
        return PipelinedUpload.run(writesTo(file, path), transport().alloc(), writeSize, window, in);
    }

    /** Reads all of {@code path} into {@code out}; returns the octets read. */
    public long download(String path, OutputStream out) throws IOException {
        return PipelinedDownload.run(readsFrom(lookupPath(path), path), readSize, window, out);
    }

    private PipelinedDownload.Reads<Read3Res> readsFrom(NfsFh3 file, String path) {
        return new PipelinedDownload.Reads<>() {
            @Override
            public CompletableFuture<Read3Res> read(long offset, int count) {
                return NfsClient.this.read(file, offset, count);
            }

            @Override
            public ByteBuf data(Read3Res reply) {
                if (!reply.status().isOk()) {
                    reply.release();
                    throw new NfsStatusException(reply.status(), "READ " + path);
                }
                return reply.data();
            }

            @Override
            public boolean eof(Read3Res reply) {
                return reply.eof();
            }

            @Override
            public void release(Read3Res reply) {
                reply.release();
            }

            @Override
            public RuntimeException protocolError(String what) {
                return NfsClient.protocolError("READ " + path, what);
            }
        };
    }

    private PipelinedUpload.Writes<Write3Res> writesTo(NfsFh3 file, String path) {
        return new PipelinedUpload.Writes<>() {
            @Override
            public CompletableFuture<Write3Res> writeUnstable(long offset, ByteBuf data) {
                return write(file, offset, data, StableHow.UNSTABLE);
            }

            @Override
            public PipelinedUpload.Written written(Write3Res reply) {
                check(reply.status(), "WRITE");
                return new PipelinedUpload.Written(reply.count(), reply.verf());
            }

            @Override
            public long commit(long offset) {
                Commit3Res c = await(NfsClient.this.commit(file, offset, 0));
                check(c.status(), "COMMIT");
                return c.verf();
            }

            @Override
            public long writeFileSync(long offset, ByteBuf data) {
                Write3Res r = await(write(file, offset, data, StableHow.FILE_SYNC));
                check(r.status(), "WRITE FILE_SYNC");
                return r.count();
            }

            @Override
            public RuntimeException protocolError(String what) {
                return NfsClient.protocolError("WRITE " + path, what);
            }
        };
    }

    private static void check(Nfs3Status status, String operation) {
        if (!status.isOk()) {
            throw new NfsStatusException(status, operation);
        }
    }

    /**
     * The error for replies to {@code operation} that break the protocol ({@code what} says how):
     * NFS3ERR_IO, as Linux fails such calls with EIO.
     */
    private static NfsStatusException protocolError(String operation, String what) {
        return new NfsStatusException(Nfs3Status.NFS3ERR_IO, operation + " (" + what + ")");
    }

    /** Unmounts nothing (MOUNT's list is advisory) and closes the NFS transport. */
    @Override
    public void close() {
        nfs.close();
    }

    /**
     * Options of an {@link NfsClient}: MOUNT and the transfer size here; transport, credential,
     * timeout and window as for every NFS client.
     */
    public static final class Builder extends ClientBuilder<Builder> {
        private int mountPort = -1;
        private String export = "/export";
        private int maxTransfer = 1 << 20;

        private Builder(InetSocketAddress server) {
            super(server);
        }

        /** MOUNT's TCP port (default: the NFS port). */
        public Builder mountPort(int port) {
            this.mountPort = port;
            return this;
        }

        /** The export's dirpath (default {@code /export}). */
        public Builder export(String dirpath) {
            this.export = dirpath;
            return this;
        }

        /** The largest READ or WRITE this client sends (default 1 MiB). */
        public Builder maxTransfer(int octets) {
            this.maxTransfer = octets;
            return this;
        }

        /** MNT over TCP, connect NFS, FSINFO. */
        public NfsClient connect() throws IOException {
            NfsFh3 root = mount();
            RpcClient rpc = openRpc(maxTransfer, NfsRdmaSettings::forNfs);
            try {
                Fsinfo3Res info = await(rpc.call(PROGRAM, VERSION, NFSPROC3_FSINFO, root::encode, Fsinfo3Res::decode));
                check(info.status(), "FSINFO");
                int rsize = transferSize(maxTransfer, info.rtpref(), info.rtmax());
                int wsize = transferSize(maxTransfer, info.wtpref(), info.wtmax());
                return new NfsClient(rpc, root, rsize, wsize, window);
            } catch (RuntimeException e) {
                rpc.close();
                throw e;
            }
        }

        /**
         * The READ or WRITE size from FSINFO (RFC 1813 §3.3.19): the preferred size, else the
         * largest; no more than the largest if that is at least 512, as Linux's
         * {@code nfs_server_set_fsinfo} (fs/nfs/client.c) ignores a smaller one; then
         * {@link TransferSizes#of}, so that sizes of 0 become 4096.
         */
        static int transferSize(int limit, long preferred, long max) {
            long size = preferred > 0 ? preferred : max;
            if (max >= 512) {
                size = Math.min(size, max);
            }
            return TransferSizes.of(limit, size);
        }

        private NfsFh3 mount() {
            InetSocketAddress mountAddress = new InetSocketAddress(server.getAddress(),
                    mountPort < 0 ? server.getPort() : mountPort);
            RpcTcpClientTransport t = await(RpcTcpClientTransport.connect(mountAddress));
            try (RpcClient mount = rpcClient(t)) {
                Mountres3 res = await(mount.call(MountConstants.PROGRAM, MountConstants.VERSION,
                        MountConstants.MOUNTPROC3_MNT, o -> o.writeString(export, MountConstants.MNTPATHLEN),
                        Mountres3::decode));
                if (res.status() != MountStat3.MNT3_OK) {
                    throw new NfsMountException(res.status(), export);
                }
                return res.fhandle();
            }
        }
    }
}
