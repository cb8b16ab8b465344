package org.iwarp4j.interop.nfs;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.interop.peer.PeerGoneException;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer's kernel NFS server (knfsd) exporting a fresh tmpfs, NFSv3 only (or with NFSv4, {@link
 * #start(LinuxPeer, boolean)}), with NFS/RDMA on
 * {@value #RDMA_PORT} ({@code echo 'rdma 20049' > /proc/fs/nfsd/portlist}) and rpc.mountd on the
 * fixed TCP port {@value #MOUNTD_PORT}, both reachable from this host through
 * {@link LinuxPeer#forwardedPort}. The export is {@code insecure}: connections forwarded to the
 * peer come from unprivileged ports. rpcbind runs if it did not already (nfsd registers with it).
 * Closing stops nfsd and what this class started, and removes the export. A peer whose nfsd
 * already runs is not ours to reconfigure: the test is skipped.
 */
final class KnfsdOnPeer implements AutoCloseable {

    static final int RDMA_PORT = 20049;
    static final int MOUNTD_PORT = 20048;
    private static final Logger LOG = LoggerFactory.getLogger(KnfsdOnPeer.class);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final LinuxPeer peer;
    private final boolean nfs4;
    private String exportPath;
    private BackgroundCommand rpcbind;
    private BackgroundCommand mountd;
    private boolean nfsdStarted;
    private boolean tracing;
    private static final String TRACING = "/sys/kernel/tracing";
    /** Tracepoints besides rpcrdma's and rdma_cm's, each rare in a healthy run (where the kernel has them). */
    private static final String RARE_EVENTS = "sunrpc/svc_drop sunrpc/svc_defer sunrpc/svc_defer_drop "
            + "sunrpc/svc_defer_queue sunrpc/cache_entry_upcall sunrpc/cache_entry_no_listener "
            + "sunrpc/cache_entry_expired sunrpc/svc_xprt_close sunrpc/svc_xprt_detach nfsd/nfsd_compound "
            + "nfsd/nfsd_clid_expire_unconf nfsd/nfsd_clid_purged nfsd/nfsd_grace_complete";
    /** Lines of the trace that name one of {@link #RARE_EVENTS}. */
    private static final String RARE_PATTERN = "svc_drop|svc_defer|cache_entry_|svc_xprt_close|svc_xprt_detach"
            + "|nfsd_clid_|nfsd_grace|svcrdma_[a-z_]*err";
    /**
     * Per-CPU trace buffer, KiB: the default (about 1.4 MiB) holds only the last seconds of a 16 MiB
     * transfer, and a call that goes unanswered is diagnosed two minutes after it was received.
     */
    private static final int TRACE_BUFFER_KIB = 16384;

    private KnfsdOnPeer(LinuxPeer peer, boolean nfs4) {
        this.peer = peer;
        this.nfs4 = nfs4;
    }

    static KnfsdOnPeer start(LinuxPeer peer) {
        return start(peer, false);
    }

    /**
     * With {@code nfs4}, knfsd serves NFSv4 too (all minor versions it has) with the shortest lease
     * and grace period it accepts (10 s): with no client tracking in the guest, a fresh knfsd
     * refuses OPEN with NFS4ERR_GRACE for the whole grace period. Its NFSv4 root is the pseudo
     * file system rpc.mountd builds from the exports, so the export is found below it by its path.
     */
    static KnfsdOnPeer start(LinuxPeer peer, boolean nfs4) {
        KnfsdOnPeer knfsd = new KnfsdOnPeer(peer, nfs4);
        try {
            knfsd.setUp();
            return knfsd;
        } catch (RuntimeException | Error e) {
            try {
                knfsd.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    private void setUp() {
        long start = System.nanoTime();
        peer.exec("modprobe -a nfsd rpcrdma && { mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd; }")
                .requireSuccess();
        String threads = peer.exec("cat /proc/fs/nfsd/threads").requireSuccess().stdout().strip();
        Assumptions.assumeTrue(threads.equals("0"), "nfsd already runs on the peer (" + threads + " threads)");

        exportPath = peer.exec("mktemp -d /tmp/iwarp4j-knfsd.XXXXXX").requireSuccess().stdout().strip();
        // tmpfs has no UUID for nfsd to name it by: fsid gives it one.
        peer.exec("mount -t tmpfs -o size=512m,mode=0777 iwarp4j-knfsd " + exportPath).requireSuccess();
        if (!peer.exec("pgrep -x rpcbind").succeeded()) {
            rpcbind = peer.start("exec rpcbind -f");
            peer.awaitListening(111, START_TIMEOUT);
        }
        peer.exec("exportfs -i -o rw,insecure,no_root_squash,no_subtree_check,fsid=4049 '*:" + exportPath + "'")
                .requireSuccess();
        mountd = peer.start("exec rpc.mountd -F -p " + MOUNTD_PORT);
        peer.awaitListening(MOUNTD_PORT, START_TIMEOUT);
        // svcrdma and the connection manager explain themselves through tracepoints only; so does
        // a request the RPC server drops or defers (an export or client cache upcall to mountd),
        // and nfsd_compound names the xid of every NFSv4 COMPOUND knfsd runs.
        tracing = peer.exec("{ mountpoint -q " + TRACING + " || mount -t tracefs tracefs " + TRACING + "; } && "
                + "{ echo " + TRACE_BUFFER_KIB + " > " + TRACING + "/buffer_size_kb || true; } && "
                + "echo 1 > " + TRACING + "/events/rpcrdma/enable && echo 1 > " + TRACING + "/events/rdma_cma/enable && "
                + rareEvents(1) + " && echo > " + TRACING + "/trace").succeeded();
        nfsdStarted = true;
        if (nfs4) {
            peer.exec("echo 10 > /proc/fs/nfsd/nfsv4leasetime; echo 10 > /proc/fs/nfsd/nfsv4gracetime").requireSuccess();
            peer.exec("rpc.nfsd 4", START_TIMEOUT).requireSuccess();
        } else {
            peer.exec("rpc.nfsd -N 4 4", START_TIMEOUT).requireSuccess();
        }
        peer.exec("echo 'rdma " + RDMA_PORT + "' > /proc/fs/nfsd/portlist").requireSuccess();
        peer.awaitListening(RDMA_PORT, START_TIMEOUT);
        LOG.info("knfsd on the peer in {} ms; portlist: {}; versions: {}", (System.nanoTime() - start) / 1_000_000,
                peer.exec("cat /proc/fs/nfsd/portlist").stdout().strip().replace('\n', ','),
                peer.exec("cat /proc/fs/nfsd/versions").stdout().strip());
    }

    /** A shell loop that turns each of {@link #RARE_EVENTS} the guest's kernel has on (1) or off (0). */
    private static String rareEvents(int enable) {
        return "for e in " + RARE_EVENTS + "; do if [ -e " + TRACING + "/events/$e/enable ]; then echo " + enable
                + " > " + TRACING + "/events/$e/enable; fi; done";
    }

    /** The exported directory on the peer (also the dirpath to MOUNT). */
    String exportPath() {
        return exportPath;
    }

    /** {@code name} in the export, as a path on the peer. */
    String onPeer(String name) {
        return exportPath + "/" + name;
    }

    /** Where this host reaches rpc.mountd. */
    InetSocketAddress mountAddress() {
        return peer.forwardedPort(MOUNTD_PORT);
    }

    /** Where this host reaches NFS/RDMA. */
    InetSocketAddress rdmaAddress() {
        return peer.forwardedPort(RDMA_PORT);
    }

    /** The peer's last kernel messages and rpcrdma/rdma_cm trace events, for failure reports. */
    String diagnostics() {
        return diagnostics(List.of());
    }

    /**
     * {@link #diagnostics()}, and besides the trace's last lines every line of the rarer events
     * (drops, deferrals, cache upcalls, transports closed) and every line naming one of {@code xids}
     * (e.g. "0xbe72c7da": was the call received, run, answered?).
     */
    String diagnostics(List<String> xids) {
        StringBuilder b = new StringBuilder("--- peer dmesg ---\n").append(peer.exec("dmesg | tail -20").stdout());
        if (tracing) {
            String events = "grep -v '^#' " + TRACING + "/trace";
            b.append("--- peer trace, drops, deferrals, cache upcalls, closes, clients, svcrdma errors (last 40) ---\n")
                    .append(peer.exec(events + " | grep -E '" + RARE_PATTERN + "' | tail -40").stdout());
            for (String xid : xids) {
                if (xid.matches("0x[0-9a-f]{8}")) {
                    b.append("--- peer trace lines naming xid ").append(xid).append(" ---\n")
                            .append(peer.exec(events + " | grep -i '" + xid + "' | tail -40").stdout());
                }
            }
            b.append("--- peer rpcrdma and rdma_cm trace (last 80 lines) ---\n")
                    .append(peer.exec(events + " | tail -80").stdout());
        }
        return b.toString();
    }

    /** All rpcrdma and rdma_cm trace events so far (empty if tracing is unavailable). */
    String trace() {
        return tracing ? peer.exec("grep -v '^#' " + TRACING + "/trace").stdout() : "";
    }

    /**
     * Undoes what {@link #start} did, step by step: a step that fails is logged and the rest still
     * run, and the first failure is thrown at the end. When a step finds the peer stopped
     * responding ({@link PeerGoneException}; disabling the tracepoints hung a TCG guest once in
     * CI), the remaining steps still run, at no cost: a command on a peer known gone fails at once,
     * and killing mountd and rpcbind ends our local ssh clients. The first such exception is kept,
     * the later ones (the same evidence) are not.
     */
    @Override
    public void close() {
        List<Runnable> steps = new ArrayList<>();
        if (tracing) {
            steps.add(() -> report(peer.exec("echo 0 > " + TRACING + "/events/rpcrdma/enable; echo 0 > " + TRACING
                    + "/events/rdma_cma/enable; " + rareEvents(0))));
        }
        if (nfsdStarted) {
            steps.add(() -> report(peer.exec("rpc.nfsd 0", START_TIMEOUT)));
        }
        if (exportPath != null) {
            steps.add(() -> report(peer.exec("exportfs -u '*:" + exportPath + "'")));
        }
        if (mountd != null) {
            steps.add(mountd::kill);
        }
        if (rpcbind != null) {
            steps.add(rpcbind::kill);
        }
        if (exportPath != null) {
            steps.add(() -> report(peer.exec("umount " + exportPath + "; rmdir " + exportPath)));
        }
        RuntimeException first = null;
        boolean gone = false;
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (PeerGoneException e) {
                // The remaining steps still run: killing mountd's and rpcbind's ssh clients is local
                // and free, and a command on a peer known gone fails at once without waiting.
                if (gone) {
                    continue;
                }
                gone = true;
                LOG.warn("the peer stopped responding while cleaning up knfsd; the remaining steps end our side only");
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            } catch (RuntimeException e) {
                LOG.warn("cleaning up knfsd: {}", e.toString());
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void report(ExecResult result) {
        if (!result.succeeded()) {
            LOG.warn("cleaning up knfsd: {}", result);
        }
    }
}
