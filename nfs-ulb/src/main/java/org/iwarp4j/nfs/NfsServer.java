package org.iwarp4j.nfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.nfs.internal.DirectoryListings;
import org.iwarp4j.nfs.internal.Export;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.internal.MountProgram;
import org.iwarp4j.nfs.internal.Nfs3Context;
import org.iwarp4j.nfs.internal.Nfs3Limits;
import org.iwarp4j.nfs.internal.Nfs3Program;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.internal.NfsRdmaSettings;
import org.iwarp4j.nfs.internal.v4.Nfs4Context;
import org.iwarp4j.nfs.internal.v4.Nfs4Program;
import org.iwarp4j.nfs.internal.v4.Nfs4Settings;
import org.iwarp4j.oncrpc.DuplicateRequestCacheLimits;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaServer;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;

/**
 * An NFS server that exports one local directory: NFS versions 3 (RFC 1813) and 4.1/4.2 (RFC 8881,
 * RFC 7862) and MOUNT version 3 over TCP (RFC 5531 record marking), and NFS over RPC-over-RDMA
 * (RFC 8166) with the RFC 8267 binding on an iWARP {@link Rnic}, port 20049 by convention (RFC
 * 8267 §4.2, §9). MOUNT stays on TCP (RFC 8267 §5.1). NFSv4 clients mount {@code host:/} (the
 * export is the root of the NFSv4 namespace); see docs/nfs.md for the operations served.
 *
 * <pre>{@code
 * try (NfsServer server = NfsServer.builder(Path.of("/srv/data"))
 *         .exportName("/export")
 *         .exportOptions(ExportOptions.builder().readWrite().client("192.0.2.0/24").build())
 *         .tcpAddress(new InetSocketAddress(2049))
 *         .rdmaAddress(new InetSocketAddress(20049))
 *         .start()) {
 *     // mount -t nfs -o vers=3,proto=rdma,port=20049,mountport=2049,mountproto=tcp,nolock host:/export /mnt
 * }
 * }</pre>
 *
 * <p>What clients get: file handles that name inodes, resolved without searching the export (a
 * handle costs the same few file-system calls whatever the export's size), that survive renames
 * made through the server (while it remembers the object: {@link Builder#maxKnownHandles}) and,
 * when the object's path fits in the handle, restarts (NFS3ERR_STALE
 * once a file is gone, moved behind the server's back, or too deep to be found after a restart;
 * see {@code FileHandles}), real attributes from {@code java.nio} ({@code unix:*}: mode, nlink, uid,
 * gid, size, fileid, times; fsid is the export's id), WRITE UNSTABLE/DATA_SYNC/FILE_SYNC with a write
 * verifier and COMMIT, READDIR/READDIRPLUS with cookies that survive changes (a listing reads the
 * directory once; later pages cost only themselves while {@link Builder#maxListedNames} holds its
 * snapshot, and so does a new listing of an unchanged directory: {@link
 * Builder#reuseUnchangedListings}), and errors mapped
 * from the operating system's. No path ever leaves the export: names are single components,
 * ".." stops at the root, the server never follows a symbolic link, and a handle whose path no
 * longer lies in the export is stale. NLM and NSM are not provided: clients mount with
 * {@code nolock}.
 *
 * <p>Access control is {@link ExportOptions}, knfsd's exports(5) rules: by default the export is
 * read-only, root is squashed and only loopback clients are admitted (at MNT and on every NFS
 * call). Every call acts as its AUTH_SYS uid, gid and groups after squashing (AUTH_NONE as
 * {@code anonuid}); the server checks each file's mode, owner and group itself, as the kernel
 * would for that user, since a Java process cannot take the caller's identity. A server running
 * as root gives new objects to their creator; any other keeps them its own and is further limited
 * by its own permissions.
 */
public final class NfsServer implements AutoCloseable {

    private final Nfs3Context context;
    private final Nfs4Context nfs4;
    private final RpcDispatcher dispatcher;
    private final ExecutorService workers;
    private final RpcTcpServer tcp;
    private final Rnic ownRnic;
    private final RpcRdmaServer rdma;

    private NfsServer(Builder b) throws IOException {
        Export export = new Export(b.directory, b.exportName);
        this.context = new Nfs3Context(export, b.exportOptions, b.limits, new FileHandles(export, b.maxKnownHandles),
                new DirectoryListings(b.maxListedNames, b.reuseUnchangedListings));
        this.workers = workerPool(b.workerThreads);
        this.dispatcher = new RpcDispatcher(b.meterRegistry, b.duplicateRequestCache)
                .register(new Nfs3Program(context, workers).toRpcProgram())
                .register(new MountProgram(context).toRpcProgram());
        try {
            this.nfs4 = b.nfs4 == null ? null
                    : new Nfs4Context(context, b.nfs4, System::currentTimeMillis, b.nfs4StateDirectory);
        } catch (IOException | RuntimeException e) {
            workers.shutdownNow();
            context.close();
            throw e;
        }
        if (nfs4 != null) {
            dispatcher.register(new Nfs4Program(nfs4, workers).toRpcProgram());
        }
        RpcTcpServer server = null;
        if (b.tcpAddress != null) {
            try {
                server = RpcTcpServer.builder(dispatcher).maxRecordSize(b.limits.maxWrite() + 64 * 1024)
                        .bind(b.tcpAddress);
            } catch (RuntimeException e) {
                workers.shutdownNow();
                context.close();
                throw e;
            }
        }
        this.tcp = server;
        Rnic rnic = null;
        RpcRdmaServer rdmaServer = null;
        if (b.rdmaAddress != null) {
            try {
                rnic = b.rnic != null ? b.rnic : Rnic.builder().build();
                rdmaServer = RpcRdmaServer.listen(rnic, b.rdmaAddress, dispatcher, NfsRdmaSettings.forNfsServer(b.rdmaSettings,
                        b.limits));
            } catch (InterruptedException | RuntimeException e) {
                if (b.rnic == null && rnic != null) {
                    rnic.close();
                }
                if (tcp != null) {
                    tcp.close();
                }
                workers.shutdownNow();
                context.close();
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while listening for RDMA", e);
                }
                throw (RuntimeException) e;
            }
        }
        this.ownRnic = b.rnic == null ? rnic : null;
        this.rdma = rdmaServer;
        if (nfs4 != null) {
            RpcRdmaServer listening = rdmaServer;
            RpcTcpServer tcpListening = server;
            // NFSv4.1 back channels: the backward direction of the client's own connection (RFC 8167
            // over RDMA; over TCP, calls on the same connection)
            nfs4.backchannels(t -> {
                if (listening != null && "rdma".equals(t.name())) {
                    return listening.responders().stream().filter(r -> t.remoteAddress().equals(r.remoteAddress()))
                            .findFirst().map(org.iwarp4j.rpcrdma.RpcRdmaResponder::backchannel).orElse(null);
                }
                if (tcpListening != null && RpcTcpServer.TRANSPORT_NAME.equals(t.name())) {
                    return tcpListening.backchannel(t.remoteAddress());
                }
                return null;
            });
        }
    }

    private static ExecutorService workerPool(int threads) {
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "nfs-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** A builder for a server exporting {@code directory}. */
    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /** The address NFS and MOUNT listen on over TCP (the port chosen if 0 was asked), or null. */
    public SocketAddress tcpAddress() {
        return tcp == null ? null : tcp.localAddress();
    }

    /** The TCP port of NFS and MOUNT. */
    public int tcpPort() {
        return ((InetSocketAddress) tcp.localAddress()).getPort();
    }

    /** The address NFS listens on over RPC-over-RDMA, or null. */
    public SocketAddress rdmaAddress() {
        return rdma == null ? null : rdma.localAddress();
    }

    /** The RPC-over-RDMA port of NFS. */
    public int rdmaPort() {
        return ((InetSocketAddress) rdma.localAddress()).getPort();
    }

    /** The export's root file handle, as MNT returns it. */
    public NfsFh3 rootHandle() {
        try {
            return context.handles().rootHandle();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * NFSv4.1 callbacks (CB_NULL, CB_SEQUENCE over the RPC-over-RDMA backward direction) that
     * clients answered successfully; 0 without NFSv4.
     */
    public long nfs4CallbacksAnswered() {
        return nfs4 == null ? 0 : nfs4.callbacksAnswered();
    }

    /**
     * Waits until clients have answered {@code count} NFSv4.1 callbacks (see {@link
     * #nfs4CallbacksAnswered()}); false if {@code timeout} passed first or the server has no NFSv4.
     */
    public boolean awaitNfs4CallbacksAnswered(long count, java.time.Duration timeout) throws InterruptedException {
        return nfs4 != null && nfs4.awaitCallbacksAnswered(count, timeout);
    }

    /** The exported directory (canonical). */
    public Path directory() {
        return context.export().root();
    }

    /** The name clients mount, e.g. {@code /export}. */
    public String exportName() {
        return context.export().name();
    }

    /** Who may use the export and as whom. */
    public ExportOptions exportOptions() {
        return context.options();
    }

    /**
     * Whether new files, directories and links get their creator's (squashed) uid and gid: only a
     * server running as root can chown; otherwise they belong to the server's user.
     */
    public boolean givesNewFilesToCallers() {
        return Nfs3Context.canChown();
    }

    /**
     * The dispatcher serving NFSv3 and MOUNT v3, for further transports (RPC-over-RDMA). A
     * transport that reports no {@code InetSocketAddress} for the caller gets it refused unless the
     * export admits every client ({@code *}).
     */
    public RpcDispatcher dispatcher() {
        return dispatcher;
    }

    /** Stops listening, closes connections and open files. */
    @Override
    public void close() {
        if (rdma != null) {
            rdma.close();
        }
        if (ownRnic != null) {
            ownRnic.close();
        }
        if (tcp != null) {
            tcp.close();
        }
        workers.shutdown();
        try {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        context.close();
    }

    /** Options of an {@link NfsServer}. */
    public static final class Builder {
        private final Path directory;
        private String exportName = "/export";
        // NFS and MOUNT over TCP on 2049 unless told otherwise: a server offering NFS over RDMA
        // offers TCP too (RPC-R-079), and MOUNT goes over TCP only (ULB-R-010).
        private SocketAddress tcpAddress = new InetSocketAddress(NfsBindingConstants.NFS_TCP_PORT);
        private Nfs3Limits limits = Nfs3Limits.defaults();
        private ExportOptions exportOptions = ExportOptions.defaults();
        private int workerThreads = 4;
        private int maxKnownHandles = FileHandles.DEFAULT_MAX_KNOWN;
        private int maxListedNames = DirectoryListings.DEFAULT_MAX_NAMES;
        private boolean reuseUnchangedListings = true;
        private SocketAddress rdmaAddress;
        private Rnic rnic;
        private io.micrometer.core.instrument.MeterRegistry meterRegistry;
        private DuplicateRequestCacheLimits duplicateRequestCache = DuplicateRequestCacheLimits.DEFAULT;
        private RpcRdmaSettings rdmaSettings = RpcRdmaSettings.defaults();
        private Nfs4Settings nfs4 = Nfs4Settings.defaults();
        private Path nfs4StateDirectory;

        private Builder(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /** The dirpath clients give MOUNT (default {@code /export}). */
        public Builder exportName(String name) {
            if (!name.startsWith("/")) {
                throw new IllegalArgumentException("an export name is an absolute path: " + name);
            }
            this.exportName = name;
            return this;
        }

        /**
         * Who may use the export and as whom (default {@link ExportOptions#defaults()}: read-only,
         * root squash, loopback clients only).
         */
        public Builder exportOptions(ExportOptions options) {
            this.exportOptions = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Where NFS and MOUNT listen over TCP (default port 2049, all interfaces); null for no TCP. */
        public Builder tcpAddress(SocketAddress address) {
            this.tcpAddress = address;
            return this;
        }

        /**
         * Serve NFS over RPC-over-RDMA too, at this address ({@link NfsBindingConstants#NFS_RDMA_PORT}
         * by convention), on a software RNIC of the server's own unless {@link #rnic} gives one.
         */
        public Builder rdmaAddress(SocketAddress address) {
            this.rdmaAddress = address;
            return this;
        }

        /** The RNIC for RPC-over-RDMA (the caller keeps and closes it). */
        public Builder rnic(Rnic rnic) {
            this.rnic = rnic;
            return this;
        }

        /**
         * Where the RPC layer counts its replies and its calls in progress per transport
         * ({@code iwarp.oncrpc.*}, {@link RpcDispatcher#RpcDispatcher(io.micrometer.core.instrument.MeterRegistry)});
         * default none. RPC-over-RDMA's meters go to the registry of the {@link #rnic(Rnic) RNIC}.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = registry;
            return this;
        }

        /**
         * The bounds of the duplicate request cache through which a retransmitted NFSv3 SETATTR,
         * WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME or LINK gets its first reply
         * instead of being executed again, over either transport (default {@link
         * DuplicateRequestCacheLimits#DEFAULT}; {@link DuplicateRequestCacheLimits#OFF} for none).
         * NFSv4.1 does not use it: its sessions' slots keep their own replies (RFC 8881 §2.10.6).
         */
        public Builder duplicateRequestCache(DuplicateRequestCacheLimits limits) {
            this.duplicateRequestCache = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * RPC-over-RDMA options (credits, inline sizes...); the NFS binding is set in any case, and
         * inline sizes left at their default become Linux's 4 KiB.
         */
        public Builder rdmaSettings(RpcRdmaSettings settings) {
            this.rdmaSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The largest READ and WRITE, announced in FSINFO (default 1 MiB each). */
        public Builder maxReadWrite(int maxRead, int maxWrite) {
            this.limits = new Nfs3Limits(maxRead, maxWrite, limits.preferredReaddir());
            return this;
        }

        /**
         * How many inodes the server remembers the place of (default 262,144; at least 16), its
         * memory for file handles: where each object it issued a handle for lives, so that handles
         * survive renames, and the generations of removed ones. Past it the least recently used
         * is forgotten, and its handles are resolved through the path they carry (NFS3ERR_STALE or
         * NFS4ERR_STALE when that path no longer names the object, or was too long to carry); see
         * docs/limits.md.
         */
        public Builder maxKnownHandles(int inodes) {
            if (inodes < 16) {
                throw new IllegalArgumentException("maxKnownHandles < 16: " + inodes);
            }
            this.maxKnownHandles = inodes;
            return this;
        }

        /**
         * How many directory entries (names) the server keeps, in all directories together, in
         * snapshots that READDIR and READDIRPLUS page through (default 262,144; 0 keeps none).
         * A paged listing reads the directory once, at its first page, and each further page then
         * costs only itself; past the bound the least recently used snapshot is dropped, and a
         * listing that continues in it reads the directory again once. A directory with more
         * entries than the bound is read whole for every page; see docs/limits.md.
         */
        public Builder maxListedNames(int names) {
            if (names < 0) {
                throw new IllegalArgumentException("maxListedNames < 0: " + names);
            }
            this.maxListedNames = names;
            return this;
        }

        /**
         * Whether a new listing (READDIR or READDIRPLUS with cookie 0, or with a verifier whose
         * snapshot is gone) of a directory that has not changed since its snapshot was read is
         * answered from that snapshot (default true), so that it costs a stat and its page rather
         * than a read of the whole directory. "Not changed" means the same mtime and ctime, read
         * when they were already 3 seconds old (a change within the clock tick of a read is not
         * missed); it assumes the file system stamps times from this machine's clock, as local
         * file systems do. Turn it off for an export on a network file system whose server's clock
         * may run behind; every new listing then reads the directory. See docs/limits.md.
         */
        public Builder reuseUnchangedListings(boolean reuse) {
            this.reuseUnchangedListings = reuse;
            return this;
        }

        /** Threads that run file-system operations (default 4). */
        public Builder workerThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads < 1");
            }
            this.workerThreads = threads;
            return this;
        }

        /**
         * Whether NFS version 4 (minor versions 1 and 2, RFC 8881 and RFC 7862) is served beside
         * version 3, on the same ports (default: yes). Clients mount {@code host:/}: the export
         * is the root of the NFSv4 namespace.
         */
        public Builder nfs4(boolean serve) {
            this.nfs4 = serve ? (nfs4 != null ? nfs4 : Nfs4Settings.defaults()) : null;
            return this;
        }

        /**
         * The NFSv4 lease (RFC 8881 §8.3, default 90 s) and grace period after start (§8.4.2,
         * default 0: none without {@link #nfs4StateDirectory}, one lease with recorded clients).
         */
        public Builder nfs4Lease(int leaseSeconds, int graceSeconds) {
            Nfs4Settings base = nfs4 != null ? nfs4 : Nfs4Settings.defaults();
            this.nfs4 = base.withLease(leaseSeconds).withGrace(graceSeconds);
            return this;
        }

        /**
         * Where the NFSv4 server keeps its client records across restarts (RFC 8881 §8.4.2.1;
         * default: nowhere). With a directory, the owners of clients that may hold state (after
         * RECLAIM_COMPLETE or an OPEN) are written to a small file there; a server started on
         * that directory again begins with a grace period (one lease, or {@link #nfs4Lease}'s
         * grace if set) in which those clients reclaim their opens and locks (OPEN CLAIM_PREVIOUS,
         * LOCK reclaim) and everyone else's OPEN and LOCK wait (NFS4ERR_GRACE). Without one there
         * is no grace period and no reclaim: clients lose their locks when the server restarts.
         */
        public Builder nfs4StateDirectory(Path directory) {
            this.nfs4StateDirectory = directory;
            return this;
        }

        /** Binds and starts serving. */
        public NfsServer start() throws IOException {
            return new NfsServer(this);
        }
    }
}
