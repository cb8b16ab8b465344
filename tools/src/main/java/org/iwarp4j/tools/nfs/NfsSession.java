package org.iwarp4j.tools.nfs;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.mpa.internal.text.PeerText;
import org.iwarp4j.nfs.Nfs4Client;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.oncrpc.RpcProgramMismatchException;
import org.iwarp4j.oncrpc.RpcProgramUnavailableException;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.tools.bench.ConnectFailedException;

/**
 * One client command's connection to an NFS server, over RPC-over-RDMA (on a software RNIC of its
 * own) or over TCP, in the NFS version asked for ({@link NfsVersion}; by default the highest the
 * server offers: 4.2, 4.1, then 3).
 *
 * <p>NFSv3 MOUNTs (over TCP) the export that holds the path. NFSv4 has no MOUNT: the path is
 * looked up from the server's root (PUTROOTFH), as {@code mount -t nfs4 server:/path} does; for a
 * server whose NFSv4 root is its export's directory (ours) and a path that starts with the export's
 * name, the path below the export is used instead. Closes the client, then the RNIC.
 */
public final class NfsSession implements AutoCloseable {

    private final NfsClient client;
    private final Nfs4Client client4;
    private final Rnic rnic;
    private final String export;
    private final String path;
    private final NfsTransport transport;

    private NfsSession(NfsClient client, Nfs4Client client4, Rnic rnic, String export, String path,
                       NfsTransport transport) {
        this.client = client;
        this.client4 = client4;
        this.rnic = rnic;
        this.export = export;
        this.path = path;
        this.transport = transport;
    }

    /** As {@link #open(NfsLocation, NfsServerAccess, NfsTransport, int, int, MeterRegistry,
     *  org.iwarp4j.tools.pcap.PcapRecording, NfsVersion)} with NFSv3 (MOUNT, then NFS version 3). */
    public static NfsSession open(NfsLocation location, NfsServerAccess options, NfsTransport transport, int maxTransfer,
                           int window, MeterRegistry rnicMeters, org.iwarp4j.tools.pcap.PcapRecording pcap)
            throws IOException, InterruptedException {
        return open(location, options, transport, maxTransfer, window, rnicMeters, pcap, NfsVersion.V3);
    }

    /**
     * Connects to the server of {@code location} over {@code transport} in {@code version}, READs and
     * WRITEs of at most {@code maxTransfer} octets, {@code window} of them in flight; an RDMA session's
     * RNIC meters into {@code rnicMeters} if not null.
     *
     * @throws ConnectFailedException no connection to the server (exit status 3)
     * @throws IOException            the server has no export holding the path, refused it, or does not
     *                                speak the version asked for
     */
    public static NfsSession open(NfsLocation location, NfsServerAccess options, NfsTransport transport, int maxTransfer,
                                  int window, MeterRegistry rnicMeters, org.iwarp4j.tools.pcap.PcapRecording pcap,
                                  NfsVersion version) throws IOException, InterruptedException {
        return open(location, options, transport, maxTransfer, maxTransfer, window, rnicMeters, pcap, version);
    }

    /**
     * As above with separate limits for READ and WRITE: NFSv4 sizes its session by them; NFSv3 takes
     * the larger as its limit and leaves the sizes of single calls to the caller.
     */
    public static NfsSession open(NfsLocation location, NfsServerAccess options, NfsTransport transport, int maxRead,
                                  int maxWrite, int window, MeterRegistry rnicMeters,
                                  org.iwarp4j.tools.pcap.PcapRecording pcap, NfsVersion version)
            throws IOException, InterruptedException {
        int maxTransfer = Math.max(maxRead, maxWrite);
        InetSocketAddress nfsTcp = new InetSocketAddress(location.host(), options.port());
        if (nfsTcp.isUnresolved()) {
            throw new ConnectFailedException("no such host: " + location.host(), null);
        }
        Rnic rnic = null;
        if (transport == NfsTransport.RDMA) {
            Rnic.Builder rb = Rnic.builder().name("nfs-client").eventLoopThreads(1)
                    .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(pcap));
            if (rnicMeters != null) {
                rb.meterRegistry(rnicMeters);
            }
            rnic = rb.build();
        }
        try {
            if (version != NfsVersion.V3) {
                try {
                    return openV4(location, options, transport, maxRead, maxWrite, window, version, nfsTcp, rnic);
                } catch (IOException | RuntimeException e) {
                    if (version != NfsVersion.HIGHEST || !noVersionFour(e)) {
                        throw e;
                    }
                    // the server does not serve NFS version 4: NFSv3, as mount(8) falls back
                }
            }
            return openV3(location, options, transport, maxTransfer, window, nfsTcp, rnic);
        } catch (IOException | RuntimeException e) {
            if (rnic != null) {
                rnic.close();
            }
            throw e;
        }
    }

    /** Whether {@code e} says the server has no NFS version 4 (RFC 5531 PROG_MISMATCH, PROG_UNAVAIL). */
    static boolean noVersionFour(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RpcProgramMismatchException || t instanceof RpcProgramUnavailableException) {
                return true;
            }
        }
        return false;
    }

    private static NfsSession openV3(NfsLocation location, NfsServerAccess options, NfsTransport transport,
                                     int maxTransfer, int window, InetSocketAddress nfsTcp, Rnic rnic)
            throws IOException, InterruptedException {
        InetSocketAddress mount = new InetSocketAddress(nfsTcp.getAddress(), options.mountPort());
        String export = options.export() != null ? NfsLocation.normalise(options.export()) : findExport(location, mount, options);
        String path = location.below(export);
        if (path == null) {
            throw new IOException(location.path() + " is not below the export " + export);
        }
        NfsClient.Builder b = NfsClient.builder(nfsTcp).mountPort(options.mountPort()).export(export)
                .credential(options.credential()).timeout(options.timeout()).maxTransfer(maxTransfer).window(window);
        if (rnic != null) {
            b.rdma(rnic, new InetSocketAddress(nfsTcp.getAddress(), options.rdmaPort()));
        }
        try {
            return new NfsSession(b.connect(), null, rnic, export, path, transport);
        } catch (IOException | RuntimeException e) {
            throw NfsFailures.connectFailure(e, transport == NfsTransport.RDMA
                    ? "NFS over RPC-over-RDMA to " + nfsTcp.getHostString() + ":" + options.rdmaPort()
                    + " (MOUNT over TCP port " + options.mountPort() + ")"
                    : "NFS over TCP to " + nfsTcp.getHostString() + ":" + options.port());
        }
    }

    private static NfsSession openV4(NfsLocation location, NfsServerAccess options, NfsTransport transport,
                                     int maxRead, int maxWrite, int window, NfsVersion version,
                                     InetSocketAddress nfsTcp, Rnic rnic) throws IOException {
        Nfs4Client.Builder b = Nfs4Client.builder(nfsTcp).credential(options.credential()).timeout(options.timeout())
                .maxTransfer(maxRead, maxWrite).window(window);
        if (version == NfsVersion.V4_1) {
            b.minorVersion(1);
        } else if (version == NfsVersion.V4_2) {
            b.minorVersion(2);
        }
        if (rnic != null) {
            b.rdma(rnic, new InetSocketAddress(nfsTcp.getAddress(), options.rdmaPort()));
        }
        Nfs4Client nfs;
        try {
            nfs = b.connect();
        } catch (IOException | RuntimeException e) {
            if (noVersionFour(e)) {
                throw new IOException(nfsTcp.getHostString() + " does not serve NFS version 4 (" + e.getMessage()
                        + "); --vers 3 speaks NFSv3", e);
            }
            if (e instanceof Nfs4StatusException) {
                throw e;
            }
            throw NfsFailures.connectFailure(e, "NFSv4 over " + (transport == NfsTransport.RDMA
                    ? "RPC-over-RDMA to " + nfsTcp.getHostString() + ":" + options.rdmaPort()
                    : "TCP to " + nfsTcp.getHostString() + ":" + options.port()));
        }
        try {
            String full = location.path().equals("/") ? "" : location.path().substring(1);
            String below = options.export() != null ? location.below(options.export()) : belowFirst(location);
            String exportBelow = options.export() != null ? NfsLocation.normalise(options.export())
                    : "/" + (full.indexOf('/') < 0 ? full : full.substring(0, full.indexOf('/')));
            // the path as it is, else below the export (our server's NFSv4 root is the export);
            // a path that does not exist yet (put) by its parent directory, in the same order
            String path = full;
            String export = "/";
            if (!exists(nfs, full)) {
                if (below != null && exists(nfs, below)) {
                    path = below;
                    export = exportBelow;
                } else if (!exists(nfs, parent(full)) && below != null && !below.isEmpty()
                        && exists(nfs, parent(below))) {
                    path = below;
                    export = exportBelow;
                }
            }
            return new NfsSession(null, nfs, rnic, export, path, transport);
        } catch (RuntimeException e) {
            nfs.close();
            throw e;
        }
    }

    /** The path below its first component ("/export/a/b" gives "a/b"), or null for a single component. */
    private static String belowFirst(NfsLocation location) {
        String p = location.path();
        int second = p.indexOf('/', 1);
        return p.length() <= 1 ? null : second < 0 ? "" : p.substring(second + 1);
    }

    private static boolean exists(Nfs4Client nfs, String path) {
        try {
            nfs.lookupPath(path);
            return true;
        } catch (Nfs4StatusException e) {
            return false;
        }
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? "" : path.substring(0, slash);
    }

    private static String findExport(NfsLocation location, InetSocketAddress mount, NfsServerAccess options)
            throws IOException, InterruptedException {
        List<String> exports;
        try {
            exports = MountExports.list(mount, options.credential(), options.timeout());
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw NfsFailures.connectFailure(cause, "MOUNT EXPORT at " + mount.getHostString() + ":" + mount.getPort());
        }
        String export = MountExports.holding(location, exports);
        if (export == null) {
            // the server names its exports: shown with their control characters escaped
            throw new IOException("no export of " + location.host() + " holds " + location.path() + " (exports: "
                    + (exports.isEmpty() ? "none" : PeerText.escape(String.join(", ", exports))) + ")");
        }
        return export;
    }

    /** The NFSv3 client; IllegalStateException for an NFSv4 session ({@link #client4()}). */
    public NfsClient client() {
        if (client == null) {
            throw new IllegalStateException("an NFSv4." + client4.minorVersion() + " session has no NFSv3 client");
        }
        return client;
    }

    /** The NFSv4 client, or null for an NFSv3 session. */
    public Nfs4Client client4() {
        return client4;
    }

    /** The version spoken: {@link NfsVersion#V3}, {@link NfsVersion#V4_1} or {@link NfsVersion#V4_2}. */
    public NfsVersion version() {
        return client4 == null ? NfsVersion.V3 : client4.minorVersion() == 1 ? NfsVersion.V4_1 : NfsVersion.V4_2;
    }

    /** The path operations, whichever the version. */
    public NfsFiles files() {
        return client4 != null ? new Nfs4Files(client4) : new Nfs3Files(client);
    }

    /** The export mounted, e.g. {@code /export} (NFSv4: "/" when the path is from the server's root). */
    public String export() {
        return export;
    }

    /** The path below the export, or below the NFSv4 root ("" for it). */
    public String path() {
        return path;
    }

    public NfsTransport transport() {
        return transport;
    }

    /** The RNIC of an RDMA session, or null. */
    public Rnic rnic() {
        return rnic;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        if (client4 != null) {
            client4.close();
        }
        if (rnic != null) {
            rnic.close();
        }
    }
}
