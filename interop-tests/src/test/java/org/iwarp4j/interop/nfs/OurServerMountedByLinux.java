package org.iwarp4j.interop.nfs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.nfs.ClientNetwork;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our {@link NfsServer} exporting a local directory as {@value #EXPORT}, mounted by the peer's
 * kernel NFS client over RPC-over-RDMA:
 * {@code mount -t nfs -o vers=3,proto=rdma,port=<rdma>,mountport=<tcp>,mountproto=tcp,nolock}.
 * The server listens on the address the peer reaches (VM: host loopback, seen by the guest as
 * 10.0.2.2); its RNIC counts RDMA messages and, if asked, records each connection as a pcap.
 * Closing unmounts, stops the server and the RNIC.
 */
final class OurServerMountedByLinux implements AutoCloseable {

    static final String EXPORT = "/export";
    private static final Logger LOG = LoggerFactory.getLogger(OurServerMountedByLinux.class);
    private static final Duration MOUNT_TIMEOUT = Duration.ofMinutes(3);

    private final LinuxPeer peer;
    private final SimpleMeterRegistry meters;
    private final List<ByteArrayOutputStream> captures;
    private final Rnic rnic;
    private final NfsServer server;
    private final String mountPoint;
    private final String options;
    private final String remotePath;
    private boolean closed;

    private OurServerMountedByLinux(LinuxPeer peer, SimpleMeterRegistry meters, List<ByteArrayOutputStream> captures,
            Rnic rnic, NfsServer server, String mountPoint, String options, String remotePath) {
        this.peer = peer;
        this.meters = meters;
        this.captures = captures;
        this.rnic = rnic;
        this.server = server;
        this.mountPoint = mountPoint;
        this.options = options;
        this.remotePath = remotePath;
    }

    /**
     * Starts the server on {@code directory} and mounts it on a new directory of the peer.
     *
     * @param record keep a pcap of each RDMA connection in memory (for {@link #writeCapture})
     * @param crc our MPA CRC mode: {@code REQUIRE} (our default) turns CRC on, since Linux asks
     *     for none; {@code ACCEPT} leaves it off, as between two Linux hosts (see {@link SiwTrailerWorkaround})
     */
    static OurServerMountedByLinux mount(LinuxPeer peer, Path directory, boolean record, NegotiationMode crc)
            throws IOException {
        return mount(peer, directory, record, crc, "nfsv3", EXPORT, server -> "vers=3,proto=rdma,port="
                + server.rdmaPort() + ",mountport=" + server.tcpPort() + ",mountproto=tcp,nolock");
    }

    /**
     * As {@link #mount(LinuxPeer, Path, boolean, NegotiationMode)}, with the kernel module to load,
     * the path to mount ({@code /} for NFSv4, whose namespace is rooted at the export) and the
     * mount options, chosen once the server's ports are known.
     */
    static OurServerMountedByLinux mount(LinuxPeer peer, Path directory, boolean record, NegotiationMode crc,
            String module, String remotePath, java.util.function.Function<NfsServer, String> mountOptions)
            throws IOException {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        List<ByteArrayOutputStream> captures = new CopyOnWriteArrayList<>();
        Rnic rnic = Rnic.builder().name("nfs-server").meterRegistry(meters)
                .channelInitializer(ch -> {
                    if (record) {
                        ByteArrayOutputStream capture = new ByteArrayOutputStream();
                        captures.add(capture);
                        ch.pipeline().addLast(PcapWriteHandler.builder().build(capture));
                    }
                })
                .build();
        NfsServer server = null;
        String mountPoint = null;
        try {
            server = NfsServer.builder(directory).exportName(EXPORT)
                    // the peer's kernel client writes as root, from an address that depends on the
                    // peer (a VM's forwarded connections arrive from loopback): knfsd's
                    // rw,no_root_squash for '*', on an address only the peer reaches
                    .exportOptions(ExportOptions.builder().readWrite().rootSquash(false)
                            .client(ClientNetwork.EVERYONE).build())
                    .tcpAddress(new InetSocketAddress(peer.hostBindAddress(), 0))
                    .rdmaAddress(new InetSocketAddress(peer.hostBindAddress(), 0))
                    .rnic(rnic)
                    .rdmaSettings(RpcRdmaSettings.builder().mpa(MpaSettings.builder().crc(crc).build()).build())
                    .start();
            peer.exec("modprobe -a rpcrdma " + module).requireSuccess();
            mountPoint = peer.exec("mktemp -d /tmp/iwarp4j-nfs-mnt.XXXXXX").requireSuccess().stdout().strip();
            String options = mountOptions.apply(server);
            long start = System.nanoTime();
            ExecResult mount = peer.exec("mount -t nfs -o " + options + " "
                    + peer.hostAddressSeenByPeer().getHostAddress() + ":" + remotePath + " " + mountPoint, MOUNT_TIMEOUT);
            if (!mount.succeeded()) {
                throw new AssertionError("the peer's mount failed: " + mount + "\n--- dmesg ---\n"
                        + peer.exec("dmesg | tail -30").stdout());
            }
            LOG.info("peer mounted our export in {} ms: {}", (System.nanoTime() - start) / 1_000_000, options);
            return new OurServerMountedByLinux(peer, meters, captures, rnic, server, mountPoint, options, remotePath);
        } catch (IOException | RuntimeException | Error e) {
            if (mountPoint != null) {
                peer.exec("rmdir " + mountPoint);
            }
            if (server != null) {
                server.close();
            }
            rnic.close();
            throw e;
        }
    }

    /** Unmounts and mounts again with the same options (the server keeps running). */
    void remount() {
        peer.exec("umount " + mountPoint, MOUNT_TIMEOUT).requireSuccess();
        ExecResult mount = peer.exec("mount -t nfs -o " + options + " " + peer.hostAddressSeenByPeer().getHostAddress()
                + ":" + remotePath + " " + mountPoint, MOUNT_TIMEOUT);
        if (!mount.succeeded()) {
            throw new AssertionError("the peer's remount failed: " + mount + "\n--- dmesg ---\n" + dmesg());
        }
    }

    /** Where the peer mounted the export. */
    String mountPoint() {
        return mountPoint;
    }

    /** {@code name} under the mount point, as the peer sees it. */
    String onPeer(String name) {
        return mountPoint + "/" + name;
    }

    /** The peer's line for this mount in /proc/mounts (shows proto, rsize, wsize as the kernel chose them). */
    String procMountsLine() {
        return peer.exec("grep ' " + mountPoint + " ' /proc/mounts").requireSuccess().stdout().strip();
    }

    /** A numeric option of the mount as the kernel chose it, e.g. {@code rsize}. */
    int mountOption(String name) {
        for (String option : procMountsLine().split("\\s+")[3].split(",")) {
            if (option.startsWith(name + "=")) {
                return Integer.parseInt(option.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + procMountsLine());
    }

    /** Drops the peer's page cache, so what it reads next comes from the server. */
    void dropPeerCaches() {
        peer.exec("sync && echo 3 > /proc/sys/vm/drop_caches").requireSuccess();
    }

    /** RDMA Messages our RNIC sent with this opcode (rdma_write, rdma_read_request, send_with_invalidate...). */
    double sent(String opcode) {
        Counter c = meters.find("iwarp.rdmap.messages").tag("direction", "tx").tag("opcode", opcode).counter();
        return c == null ? 0 : c.count();
    }

    /** RDMA Messages our RNIC received with this opcode. */
    double received(String opcode) {
        Counter c = meters.find("iwarp.rdmap.messages").tag("direction", "rx").tag("opcode", opcode).counter();
        return c == null ? 0 : c.count();
    }

    /** Terminate messages our RNIC sent or received, by direction, layer and type; empty if none. */
    String terminates() {
        StringBuilder s = new StringBuilder();
        for (Counter c : meters.find("iwarp.rdmap.terminates").counters()) {
            if (c.count() > 0) {
                s.append(c.getId().getTag("direction")).append(' ').append(c.getId().getTag("layer")).append(' ')
                        .append(c.getId().getTag("type")).append(": ").append((long) c.count()).append('\n');
            }
        }
        return s.toString();
    }

    /** The peer's last kernel messages. */
    String dmesg() {
        return peer.exec("dmesg | tail -40").stdout();
    }

    NfsServer server() {
        return server;
    }

    String options() {
        return options;
    }

    /** Writes the connections recorded so far, one pcap file each, and returns the first. */
    Path writeCapture(Path directory, String name) throws IOException {
        if (captures.isEmpty()) {
            throw new AssertionError("no RDMA connection was recorded");
        }
        Files.createDirectories(directory);
        Path first = null;
        for (int i = 0; i < captures.size(); i++) {
            Path file = directory.resolve(name + (i == 0 ? "" : "-" + i) + ".pcap");
            Files.write(file, captures.get(i).toByteArray());
            first = first == null ? file : first;
        }
        return first;
    }

    /** Unmounts (lazily if the mount is busy), then stops the server and the RNIC; once. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ExecResult umount = peer.exec("umount " + mountPoint, MOUNT_TIMEOUT);
            if (!umount.succeeded()) {
                LOG.warn("umount failed, detaching lazily: {}", umount);
                peer.exec("umount -f -l " + mountPoint, MOUNT_TIMEOUT);
            }
            peer.exec("rmdir " + mountPoint);
        } finally {
            server.close();
            rnic.close();
        }
    }
}
