package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsFailures;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.iwarp4j.cli.UntilStopped;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.oncrpc.DuplicateRequestCacheLimits;
import org.iwarp4j.rdmap.Rnic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp nfs serve DIR}: iwarp4j's NFS server exporting DIR, NFS and MOUNT over TCP and
 * NFS over RPC-over-RDMA on a software RNIC, until stopped; prints the Linux mount lines.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Export DIR over NFSv3 and NFSv4.1/4.2: NFS and MOUNT v3 over TCP, NFS over RPC-over-RDMA",
                "(RFC 8267) on iwarp4j's software iWARP RNIC, on the same ports. Serves until stopped (Ctrl-C or",
                "SIGTERM: it closes and exits 0); prints the mount lines."},
        footer = {"", "Access control as knfsd's exports(5): read-only unless --rw; root squash unless",
                "--no-root-squash; only loopback clients unless --client names others (--client '*' admits",
                "everyone). Each call acts as its AUTH_SYS uid/gid after squashing (AUTH_NONE as --anonuid);",
                "the server checks every file's mode, owner and group for it. Running as root, new files",
                "belong to their creator; otherwise to this process's user.",
                "No NLM/NSM: Linux clients mount with nolock.",
                "Exit status: 0 stopped, 1 cannot serve (e.g. a port in use), 2 usage error."})
final class NfsServeCommand implements Callable<Integer> {

    /** About 300 MiB of remembered calls at 1 KiB replies: more is a mistyped number. */
    private static final int MAX_DRC_ENTRIES = 1 << 18;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "the directory to export")
    Path directory;

    @Option(names = "--export", description = "the name clients mount (default: ${DEFAULT-VALUE})")
    String exportName = "/export";

    @Option(names = "--tcp-port", description = "NFS and MOUNT over TCP (default: ${DEFAULT-VALUE}; 0 any)")
    int tcpPort = NfsBindingConstants.NFS_TCP_PORT;

    /** 20049, where NFSv4 clients look without a portmapper (ULB-R-015). */
    @Option(names = "--rdma-port", description = "NFS over RPC-over-RDMA (default: ${DEFAULT-VALUE}; 0 any)")
    int rdmaPort = NfsBindingConstants.NFS_RDMA_PORT;

    @Option(names = "--no-rdma", description = "serve TCP only")
    boolean noRdma;

    @Option(names = "--bind", description = "the local address to listen on (default: all)")
    String bind;

    @Option(names = "--max-io", converter = org.iwarp4j.cli.Octets.class, description = "largest READ and WRITE, announced in "
            + "FSINFO (default: 1m)")
    long maxIo = 1 << 20;

    @Option(names = "--threads", description = "threads running file-system calls (default: ${DEFAULT-VALUE})")
    int threads = 4;

    @Option(names = "--rw", description = "allow changes (default: read-only, every change is NFS3ERR_ROFS)")
    boolean readWrite;

    @Option(names = "--no-root-squash",
            description = "trust AUTH_SYS uid 0 (default: uid/gid 0 act as --anonuid/--anongid)")
    boolean noRootSquash;

    @Option(names = "--all-squash", description = "every caller acts as --anonuid/--anongid")
    boolean allSquash;

    @Option(names = "--anonuid", paramLabel = "UID",
            description = "uid of squashed and AUTH_NONE callers (default: ${DEFAULT-VALUE})")
    int anonUid = ExportOptions.NOBODY;

    @Option(names = "--anongid", paramLabel = "GID",
            description = "gid of squashed and AUTH_NONE callers (default: ${DEFAULT-VALUE})")
    int anonGid = ExportOptions.NOBODY;

    @Option(names = "--client", paramLabel = "ADDR[/PREFIX]", description = "admit this client address or network, "
            + "or * for every client; repeatable (default: loopback only, 127.0.0.0/8 and ::1)")
    List<String> clients = new ArrayList<>();

    @Option(names = "--state-dir", paramLabel = "DIR", description = "keep NFSv4 client records here across restarts: "
            + "a restart then gives the recorded clients one lease (90 s) to reclaim their opens and locks "
            + "(default: none; no grace period, clients lose their locks when the server restarts)")
    Path stateDir;

    @Option(names = "--drc-entries", paramLabel = "N", description = "calls the duplicate request cache "
            + "remembers, so that a retransmitted NFSv3 call that changes the file system gets its first reply "
            + "(as knfsd's max_drc_entries); 0 turns it off (default: ${DEFAULT-VALUE})")
    int drcEntries = DuplicateRequestCacheLimits.DEFAULT.entries();

    @Override
    public Integer call() throws IOException {
        if (!Files.isDirectory(directory)) {
            throw new ParameterException(spec.commandLine(), "DIR " + directory + ": not a directory");
        }
        if (!exportName.startsWith("/")) {
            throw new ParameterException(spec.commandLine(), "--export " + exportName
                    + ": must be an absolute path, e.g. /export");
        }
        if (tcpPort < 0 || tcpPort > 65535) {
            throw org.iwarp4j.cli.UsageErrors.invalid(spec.commandLine(), "--tcp-port", tcpPort, "must be 0..65535");
        }
        if (rdmaPort < 0 || rdmaPort > 65535) {
            throw org.iwarp4j.cli.UsageErrors.invalid(spec.commandLine(), "--rdma-port", rdmaPort, "must be 0..65535");
        }
        if (threads < 1) {
            throw org.iwarp4j.cli.UsageErrors.invalid(spec.commandLine(), "--threads", threads, "must be at least 1");
        }
        if (maxIo < 4096 || maxIo > 16 << 20) {
            throw org.iwarp4j.cli.UsageErrors.invalid(spec.commandLine(), "--max-io", maxIo, "must be 4K..16M");
        }
        if (drcEntries < 0 || drcEntries > MAX_DRC_ENTRIES) {
            throw org.iwarp4j.cli.UsageErrors.invalid(spec.commandLine(), "--drc-entries", drcEntries,
                    "must be 0.." + MAX_DRC_ENTRIES);
        }
        DuplicateRequestCacheLimits drc = drcEntries == 0 ? DuplicateRequestCacheLimits.OFF
                : new DuplicateRequestCacheLimits(drcEntries, DuplicateRequestCacheLimits.DEFAULT.replyOctets(),
                DuplicateRequestCacheLimits.DEFAULT.lifetime());
        ExportOptions options = exportOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        InetAddress address = bind == null ? null : InetAddress.getByName(bind);
        Rnic rnic = noRdma ? null : Rnic.builder().name("nfs-server")
                .capture(org.iwarp4j.tools.pcap.PcapRecording.recorder(org.iwarp4j.tools.pcap.CommandCapture.current())).build();
        NfsServer server;
        try {
            // Always TCP, RDMA on top unless --no-rdma: NFS over RDMA never comes without NFS over TCP
            // (RPC-R-079), and MOUNT is reached over TCP (ULB-R-010).
            NfsServer.Builder b = NfsServer.builder(directory).exportName(exportName)
                    .tcpAddress(new InetSocketAddress(address, tcpPort)).maxReadWrite((int) maxIo, (int) maxIo)
                    .workerThreads(threads).exportOptions(options).nfs4StateDirectory(stateDir)
                    .duplicateRequestCache(drc);
            if (rnic != null) {
                b.rdmaAddress(new InetSocketAddress(address, rdmaPort)).rnic(rnic);
            }
            server = b.start();
        } catch (IOException | RuntimeException e) {
            if (rnic != null) {
                rnic.close();
            }
            String inUse = org.iwarp4j.tools.net.ConnectErrors.cannotListen(new InetSocketAddress(address, tcpPort), e);
            err.println("iwarp nfs serve: cannot serve " + directory + ": " + (inUse.endsWith(" is already in use")
                    ? (noRdma ? inUse : inUse.replace(" is already in use", " or "
                    + org.iwarp4j.tools.net.ConnectErrors.where(new InetSocketAddress(address, rdmaPort)) + " is already in use"))
                    : e.getMessage()));
            err.flush();
            return NfsFailures.EXIT_FAILED;
        }
        try (UntilStopped stop = UntilStopped.onSignals("iwarp-nfs-serve-stop")) {
            try {
                printBanner(out, server, address, drc);
                stop.await();
            } finally {
                server.close();
                if (rnic != null) {
                    rnic.close();
                }
                out.println("# iwarp nfs serve: stopped");
                out.flush();
            }
        }
        return 0;
    }

    private ExportOptions exportOptions() {
        if (anonUid < 0 || anonGid < 0) {
            throw new ParameterException(spec.commandLine(), "--anonuid and --anongid are 0..2147483647");
        }
        ExportOptions.Builder b = ExportOptions.builder().readOnly(!readWrite).rootSquash(!noRootSquash)
                .allSquash(allSquash).anonUid(anonUid).anonGid(anonGid);
        for (String c : clients) {
            try {
                b.client(c);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--client " + c + ": " + e.getMessage());
            }
        }
        return b.build();
    }

    private void printBanner(PrintWriter out, NfsServer server, InetAddress address, DuplicateRequestCacheLimits drc) {
        ExportOptions options = server.exportOptions();
        boolean loopbackOnly = options.clients().equals(ExportOptions.defaults().clients());
        // Lines a client can use as printed: with only loopback clients admitted, an interface's
        // address would be refused (the client's source address is then that interface's too).
        String host = address != null && !address.isAnyLocalAddress()
                ? (address instanceof java.net.Inet6Address ? "[" + address.getHostAddress() + "]" : address.getHostAddress())
                : loopbackOnly ? "127.0.0.1" : localAddress();
        int tcp = server.tcpPort();
        // a read-only export mounted read-only: the client refuses writes itself, before any ROFS
        String ro = options.readOnly() ? ",ro" : "";
        out.printf("# iwarp nfs serve: exporting %s as %s%n", server.directory(), server.exportName());
        out.printf("# export %s: %s%n", server.exportName(), options.describe());
        out.println("# each call acts as its AUTH_SYS uid/gid after squashing (AUTH_NONE as the anonymous ids); "
                + "file modes, owners and groups are checked for it");
        out.println(server.givesNewFilesToCallers() ? "# new files belong to their creator (after squashing)"
                : "# new files belong to this server's user, not their creator: not running as root, it cannot chown");
        if (loopbackOnly && (address == null || !address.isLoopbackAddress())) {
            out.println("# only loopback clients are admitted: --client ADDR[/PREFIX] admits others");
        }
        out.println(drc.entries() == 0 ? "# duplicate request cache: off (a retransmitted call is executed again)"
                : "# duplicate request cache: the last " + drc.entries() + " changing NFSv3 calls, replies up to "
                + drc.replyOctets() + " octets, for " + drc.lifetime().toSeconds() + " s");
        out.printf("# NFSv3 and MOUNT v3 over TCP on port %d%s%n", tcp, noRdma ? ""
                : "; NFSv3 over RPC-over-RDMA (iWARP, iwarp4j software RNIC) on port " + server.rdmaPort());
        if (!noRdma) {
            out.println("# Linux client over RDMA (needs an iWARP device, e.g. siw: rdma link add siw0 type siw "
                    + "netdev eth0):");
            out.printf("mount -t nfs -o vers=3,proto=rdma,port=%d,mountport=%d,mountproto=tcp,nolock%s %s:%s /mnt%n",
                    server.rdmaPort(), tcp, ro, host, server.exportName());
        }
        out.println("# Linux client over TCP:");
        out.printf("mount -t nfs -o vers=3,proto=tcp,port=%d,mountport=%d,mountproto=tcp,nolock%s %s:%s /mnt%n",
                tcp, tcp, ro, host, server.exportName());
        // NFSv4: the export is the root of the namespace; no version option gets 4.2
        out.printf("# NFSv4.1 and 4.2 on the same ports; no version option gets 4.2 (vers=4.1 also works), and the "
                + "export %s is the root of the NFSv4 namespace:%n", server.exportName());
        if (!noRdma) {
            out.printf("mount -t nfs -o proto=rdma,port=%d%s %s:/ /mnt%n", server.rdmaPort(), ro, host);
        }
        out.printf("mount -t nfs -o proto=tcp,port=%d%s %s:/ /mnt%n", tcp, ro, host);
        String ports = (tcp == NfsBindingConstants.NFS_TCP_PORT ? "" : " --port " + tcp)
                + (noRdma || server.rdmaPort() == NfsBindingConstants.NFS_RDMA_PORT ? "" : " --rdma-port "
                + server.rdmaPort());
        out.printf("# iwarp4j client: ./iwarp nfs ls %s:%s%s%s%n", host, server.exportName(), ports,
                noRdma ? " --transport tcp" : "");
        out.println("# serving; stop with Ctrl-C");
        out.flush();
    }

    /**
     * An address a client on another machine (or a VM guest) can use when the server listens on
     * every interface: the first IPv4 address of an interface that is up and not loopback; a host
     * name would have to be resolvable by the client, which a VM guest's often is not.
     */
    private static String localAddress() {
        try {
            for (java.net.NetworkInterface nif : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback()) {
                    continue;
                }
                for (InetAddress a : java.util.Collections.list(nif.getInetAddresses())) {
                    if (a instanceof java.net.Inet4Address && !a.isLinkLocalAddress()) {
                        return a.getHostAddress();
                    }
                }
            }
            return InetAddress.getLocalHost().getHostAddress();
        } catch (IOException e) {
            return "SERVER";
        }
    }
}
