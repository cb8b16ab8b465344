package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer as a QEMU VM on user-mode networking: the guest is {@value #GUEST} with siw0 on
 * eth0, it reaches the host's loopback as {@value #HOST_SEEN_BY_GUEST}, and the host reaches
 * guest ports through loopback forwards. Commands run over ssh. A command that fails as if the
 * guest had stopped responding makes {@link VmLiveness} probe it; once that confirms it, every
 * command fails at once with a {@link PeerGoneException}.
 */
final class VmPeer implements WatchedPeer {

    static final String GUEST = "10.0.2.15";
    static final String HOST_SEEN_BY_GUEST = "10.0.2.2";
    static final InetAddress GUEST_ADDRESS = address(GUEST);
    private static final Logger LOG = LoggerFactory.getLogger(VmPeer.class);
    /** KVM boots this VM in seconds; one that cannot run it hangs or stops with an internal error. */
    private static final Duration KVM_PROBE = Duration.ofSeconds(45);
    private static final String KVM_VERDICT = "kvm-unusable";

    private final QemuVm vm;
    private final SshShell ssh;
    private final VmLiveness liveness;

    private VmPeer(QemuVm vm, SshShell ssh, Duration probeTimeout) {
        this.vm = vm;
        this.ssh = ssh;
        this.liveness = new VmLiveness(ssh, ssh.freshConnections(probeTimeout), vm::state, vm::consoleReport,
                vm::askForBacktraces, vm::cpuTime, probeTimeout);
    }

    static VmPeer open(PeerSettings settings) throws PeerUnavailableException, InterruptedException {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            throw new PeerUnavailableException("the VM peer needs a Linux host with apt (qemu-system-x86)");
        }
        long start = System.nanoTime();
        Path vmDir = VmImage.ensureBuilt(settings);
        LOG.info("Linux peer VM image: {} ({} ms)", vmDir, (System.nanoTime() - start) / 1_000_000);
        QemuVm vm = boot(settings, vmDir);
        LOG.info("Linux peer VM up with {} after {} ms: {}", vm.accel(), (System.nanoTime() - start) / 1_000_000,
                vm.readyLine());
        SshShell ssh = new SshShell(vmDir.resolve("id_ed25519"), vm.sshPort(), vm.runDir().resolve("ssh"));
        try {
            ssh.openMaster(Duration.ofMinutes(2));
        } catch (IOException e) {
            vm.close();
            throw new PeerUnavailableException("the VM is up but ssh into it fails: " + e.getMessage(), e);
        }
        return new VmPeer(vm, ssh, settings.probeTimeout());
    }

    private static QemuVm boot(PeerSettings settings, Path vmDir) throws PeerUnavailableException, InterruptedException {
        Path verdict = vmDir.getParent().resolve(KVM_VERDICT);
        String accel = settings.accel();
        if (accel.equals("auto")) {
            accel = kvmWorthTrying(verdict) ? "kvm" : "tcg";
        }
        String failures = "";
        for (int attempt = 0; attempt < 2; attempt++) {  // a second try covers a stolen ssh port
            try {
                boolean probing = accel.equals("kvm") && settings.accel().equals("auto");
                return QemuVm.boot(settings, vmDir, accel, probing ? KVM_PROBE : settings.bootTimeout());
            } catch (QemuVm.VmBootException | IOException e) {
                failures += "\n" + e.getMessage();
                if (accel.equals("kvm") && settings.accel().equals("auto")) {
                    LOG.warn("KVM does not boot the peer VM here; using TCG from now on ({}): {}", verdict, e.getMessage());
                    writeVerdict(verdict);
                    accel = "tcg";
                    attempt--;
                }
            }
        }
        throw new PeerUnavailableException("the peer VM did not boot:" + failures);
    }

    /** KVM only where /dev/kvm is usable and it has not already failed on this host kernel. */
    private static boolean kvmWorthTrying(Path verdict) {
        Path kvm = Path.of("/dev/kvm");
        if (!Files.isReadable(kvm) || !Files.isWritable(kvm)) {
            return false;
        }
        try {
            return !Files.readString(verdict, StandardCharsets.UTF_8).strip().equals(hostKernel());
        } catch (IOException e) {
            return true;
        }
    }

    private static void writeVerdict(Path verdict) {
        try {
            Files.writeString(verdict, hostKernel() + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            LOG.warn("cannot record {}: {}", verdict, e.toString());
        }
    }

    private static String hostKernel() {
        return System.getProperty("os.version", "");
    }

    @Override
    public String description() {
        return "QEMU VM (" + vm.accel() + "): " + vm.readyLine();
    }

    @Override
    public BackgroundCommand start(String shellCommand) {
        LOG.debug("peer$ {}", shellCommand);
        return BackgroundCommand.start(ssh, liveness, shellCommand);
    }

    @Override
    public Liveness liveness() {
        return liveness;
    }

    @Override
    public long consoleMark() {
        return vm.consoleMark();
    }

    @Override
    public List<String> kernelFailuresSince(long mark) {
        return vm.kernelFailuresSince(mark);
    }

    @Override
    public String rdmaDevice() {
        return "siw0";
    }

    @Override
    public InetAddress peerAddress() {
        return GUEST_ADDRESS;
    }

    @Override
    public InetAddress hostAddressSeenByPeer() {
        return address(HOST_SEEN_BY_GUEST);
    }

    @Override
    public InetAddress hostBindAddress() {
        return InetAddress.getLoopbackAddress();
    }

    @Override
    public InetSocketAddress forwardedPort(int peerPort) {
        Optional<String> gone = liveness.gone();
        if (gone.isPresent()) {
            // QEMU's monitor may be wedged with the guest: do not ask it.
            throw new PeerGoneException("guest port " + peerPort + " not forwarded", gone.get(), null);
        }
        return vm.forward(peerPort);
    }

    @Override
    public void reloadSiw(boolean crcRequired) {
        exec("rdma link delete siw0 && modprobe -r siw && modprobe siw mpa_crc_required=" + (crcRequired ? 1 : 0)
                + " && rdma link add siw0 type siw netdev eth0").requireSuccess();
    }

    @Override
    public void close() {
        try {
            ssh.close();
        } catch (IOException e) {
            LOG.debug("ssh master: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        vm.close();
    }

    @Override
    public String toString() {
        return description();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);  // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
