package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The peer is this host, whose kernel already has a siw device on a real netdev
 * ({@code /sys/class/infiniband/siw*}): commands run here (siw administration needs root),
 * and both sides use that netdev's IPv4 address. rdma_cm cannot use a siw device on
 * {@code lo}, so such a device does not count.
 */
final class LocalSiwPeer implements LinuxPeer {

    private static final Path DEVICES = Path.of("/sys/class/infiniband");
    private static final Pattern NETDEV = Pattern.compile("\\bnetdev (\\S+)");

    private final LocalShell shell = new LocalShell();
    private final String device;
    private final String netdev;
    private final InetAddress address;

    private LocalSiwPeer(String device, String netdev, InetAddress address) {
        this.device = device;
        this.netdev = netdev;
        this.address = address;
    }

    /** This host's first usable siw device, if it has one. */
    static Optional<LocalSiwPeer> detect() {
        if (!Files.isDirectory(DEVICES)) {
            return Optional.empty();
        }
        try (Stream<Path> devices = Files.list(DEVICES)) {
            for (Path path : devices.filter(p -> p.getFileName().toString().startsWith("siw")).sorted().toList()) {
                String device = path.getFileName().toString();
                Optional<LocalSiwPeer> peer = usable(device);
                if (peer.isPresent()) {
                    return peer;
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static Optional<LocalSiwPeer> usable(String device) {
        ExecResult link = BackgroundCommand.start(new LocalShell(), "rdma link show " + device + "/1")
                .waitFor(Duration.ofSeconds(30));
        Matcher m = NETDEV.matcher(link.stdout());
        if (!link.succeeded() || !m.find()) {
            return Optional.empty();
        }
        String netdev = m.group(1);
        try {
            NetworkInterface nif = NetworkInterface.getByName(netdev);
            if (nif == null || nif.isLoopback() || !nif.isUp()) {
                return Optional.empty();
            }
            return nif.inetAddresses().filter(a -> a instanceof Inet4Address).findFirst()
                    .map(a -> new LocalSiwPeer(device, netdev, a));
        } catch (SocketException e) {
            return Optional.empty();
        }
    }

    @Override
    public String description() {
        return "this host's " + device + " on " + netdev + " " + address.getHostAddress();
    }

    @Override
    public BackgroundCommand start(String shellCommand) {
        return BackgroundCommand.start(shell, shellCommand);
    }

    @Override
    public String rdmaDevice() {
        return device;
    }

    @Override
    public InetAddress peerAddress() {
        return address;
    }

    @Override
    public InetAddress hostAddressSeenByPeer() {
        return address;
    }

    @Override
    public InetAddress hostBindAddress() {
        return address;
    }

    @Override
    public InetSocketAddress forwardedPort(int peerPort) {
        return new InetSocketAddress(address, peerPort);
    }

    /**
     * Stock siw has no such parameter; a siw.ko built by build-vm.sh has it, writable at run
     * time and read at each connection setup, so no reload is needed here.
     */
    @Override
    public void reloadSiw(boolean crcRequired) {
        Path knob = Path.of("/sys/module/siw/parameters/mpa_crc_required");
        Assumptions.assumeTrue(Files.isWritable(knob), "this host's siw has no writable mpa_crc_required parameter");
        exec("echo " + (crcRequired ? 1 : 0) + " > " + knob).requireSuccess();
    }

    @Override
    public String toString() {
        return description();
    }
}
