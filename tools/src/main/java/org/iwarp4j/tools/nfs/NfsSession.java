package org.iwarp4j.tools.nfs;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.rdmap.Rnic;

/**
 * One client command's mount: MOUNT over TCP for the export that holds the path, then NFS over
 * RPC-over-RDMA (on a software RNIC of its own) or over TCP. Closes the client, then the RNIC.
 */
public final class NfsSession implements AutoCloseable {

    private final NfsClient client;
    private final Rnic rnic;
    private final String export;
    private final String path;
    private final NfsTransport transport;

    private NfsSession(NfsClient client, Rnic rnic, String export, String path, NfsTransport transport) {
        this.client = client;
        this.rnic = rnic;
        this.export = export;
        this.path = path;
        this.transport = transport;
    }

    /**
     * Mounts the export holding {@code location} and connects NFS over {@code transport}, READs and
     * WRITEs of at most {@code maxTransfer} octets, {@code window} of them in flight; an RDMA session's
     * RNIC meters into {@code rnicMeters} if not null.
     *
     * @throws ConnectFailedException no connection to the server (exit status 3)
     * @throws IOException            the server has no export holding the path, or refused it
     */
    public static NfsSession open(NfsLocation location, NfsServerAccess options, NfsTransport transport, int maxTransfer,
                           int window, MeterRegistry rnicMeters, org.iwarp4j.tools.pcap.PcapRecording pcap)
            throws IOException, InterruptedException {
        InetSocketAddress nfsTcp = new InetSocketAddress(location.host(), options.port());
        if (nfsTcp.isUnresolved()) {
            throw new ConnectFailedException("no such host: " + location.host(), null);
        }
        InetSocketAddress mount = new InetSocketAddress(nfsTcp.getAddress(), options.mountPort());
        String export = options.export() != null ? NfsLocation.normalise(options.export()) : findExport(location, mount, options);
        String path = location.below(export);
        if (path == null) {
            throw new IOException(location.path() + " is not below the export " + export);
        }
        NfsClient.Builder b = NfsClient.builder(nfsTcp).mountPort(options.mountPort()).export(export)
                .credential(options.credential()).timeout(options.timeout()).maxTransfer(maxTransfer).window(window);
        Rnic rnic = null;
        if (transport == NfsTransport.RDMA) {
            Rnic.Builder rb = Rnic.builder().name("nfs-client").eventLoopThreads(1)
                    .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(pcap));
            if (rnicMeters != null) {
                rb.meterRegistry(rnicMeters);
            }
            rnic = rb.build();
            b.rdma(rnic, new InetSocketAddress(nfsTcp.getAddress(), options.rdmaPort()));
        }
        try {
            return new NfsSession(b.connect(), rnic, export, path, transport);
        } catch (IOException | RuntimeException e) {
            if (rnic != null) {
                rnic.close();
            }
            throw NfsFailures.connectFailure(e, transport == NfsTransport.RDMA
                    ? "NFS over RPC-over-RDMA to " + nfsTcp.getHostString() + ":" + options.rdmaPort()
                    + " (MOUNT over TCP port " + options.mountPort() + ")"
                    : "NFS over TCP to " + nfsTcp.getHostString() + ":" + options.port());
        }
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
            throw new IOException("no export of " + location.host() + " holds " + location.path() + " (exports: "
                    + (exports.isEmpty() ? "none" : String.join(", ", exports)) + ")");
        }
        return export;
    }

    public NfsClient client() {
        return client;
    }

    /** The export mounted, e.g. {@code /export}. */
    public String export() {
        return export;
    }

    /** The path below the export ("" for its root). */
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
        client.close();
        if (rnic != null) {
            rnic.close();
        }
    }
}
