package org.iwarp4j.interop.peer;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One running VM, started by {@code start-vm.sh}: its console goes to a log file, and it is
 * up when the guest prints {@value #READY}. Guest ports are forwarded to host loopback ports
 * on demand through QMP. Closing stops QEMU; so does this JVM dying (start-vm.sh watches its
 * standard input).
 */
final class QemuVm implements AutoCloseable {

    static final String READY = "IWARP4J-PEER-READY";
    static final String FAILED = "IWARP4J-PEER-FAILED";
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int CONSOLE_TAIL = 40;

    private final Process process;
    private final Path runDir;
    private final int sshPort;
    private final String accel;
    private final CompletableFuture<Void> anyOutput = new CompletableFuture<>();
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Deque<String> consoleTail = new ArrayDeque<>();
    private final Map<Integer, InetSocketAddress> forwards = new ConcurrentHashMap<>();
    private Qmp qmp;

    private QemuVm(Process process, Path runDir, int sshPort, String accel, Path consoleLog) throws IOException {
        this.process = process;
        this.runDir = runDir;
        this.sshPort = sshPort;
        this.accel = accel;
        BufferedWriter log = Files.newBufferedWriter(consoleLog, StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> pumpConsole(log), "linux-peer-console");
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts the VM and waits until it is ready, at most {@code bootTimeout}. */
    static QemuVm boot(PeerSettings settings, Path vmDir, String accel, Duration bootTimeout)
            throws IOException, InterruptedException, VmBootException {
        Path runDir = Files.createTempDirectory("iwarp4j-peer");  // short: unix socket paths
        Files.createDirectories(settings.logDir());
        Path consoleLog = settings.logDir().resolve("console-" + accel + ".log");
        int sshPort = freeLoopbackPort();
        Process process = new ProcessBuilder(List.of("bash", settings.vmScripts().resolve("start-vm.sh").toString(),
                "--accel", accel, "--ssh-port", Integer.toString(sshPort),
                "--qmp", runDir.resolve("qmp.sock").toString(), "--vm-dir", vmDir.toString()))
                .redirectErrorStream(true)
                .start();
        QemuVm vm = new QemuVm(process, runDir, sshPort, accel, consoleLog);
        try {
            vm.ready.get(bootTimeout.toMillis(), TimeUnit.MILLISECONDS);
            vm.qmp = Qmp.connect(runDir.resolve("qmp.sock"));
            return vm;
        } catch (TimeoutException e) {
            vm.close();
            throw new VmBootException("the VM (" + accel + ") printed " + (vm.anyOutput.isDone() ? "no " + READY
                    : "nothing") + " within the time allowed; console: " + consoleLog + "\n" + vm.consoleTail());
        } catch (ExecutionException e) {
            vm.close();
            throw new VmBootException(e.getCause().getMessage() + "; console: " + consoleLog + "\n" + vm.consoleTail());
        } catch (IOException | InterruptedException | RuntimeException e) {
            vm.close();
            throw e;
        }
    }

    private void pumpConsole(BufferedWriter log) {
        try (log; BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                log.write(line);
                log.newLine();
                log.flush();
                remember(line);
                if (!line.startsWith("start-vm:")) {
                    anyOutput.complete(null);
                }
                if (line.startsWith(READY)) {
                    ready.complete(line);
                } else if (line.startsWith(FAILED)) {
                    ready.completeExceptionally(new IOException("the guest's init failed: " + line));
                } else if (line.startsWith("KVM internal error")) {  // QEMU then pauses the VM for good
                    ready.completeExceptionally(new IOException(line));
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        String exit = "the VM (" + accel + ") exited before " + READY;
        ready.completeExceptionally(new IOException(exit));
    }

    private synchronized void remember(String line) {
        consoleTail.addLast(line);
        if (consoleTail.size() > CONSOLE_TAIL) {
            consoleTail.removeFirst();
        }
    }

    private synchronized String consoleTail() {
        return String.join("\n", consoleTail);
    }

    String accel() {
        return accel;
    }

    /** The line the guest printed when it came up (kernel version, device, address). */
    String readyLine() {
        return ready.getNow("");
    }

    int sshPort() {
        return sshPort;
    }

    Path runDir() {
        return runDir;
    }

    /** The host loopback address forwarded to {@code guestPort} on the guest (added on first use). */
    InetSocketAddress forward(int guestPort) {
        return forwards.computeIfAbsent(guestPort, this::addForward);
    }

    private InetSocketAddress addForward(int guestPort) {
        String failure = "";
        for (int attempt = 0; attempt < 5; attempt++) {  // a free port can be taken before QEMU binds it
            try {
                int hostPort = freeLoopbackPort();
                failure = qmp.humanCommand("hostfwd_add n0 tcp:" + LOOPBACK.getHostAddress() + ":" + hostPort
                        + "-" + VmPeer.GUEST_ADDRESS.getHostAddress() + ":" + guestPort);
                if (failure.isEmpty()) {
                    return new InetSocketAddress(LOOPBACK, hostPort);
                }
            } catch (IOException e) {
                throw new PeerCommandException("cannot forward guest port " + guestPort, e);
            }
        }
        throw new PeerCommandException("cannot forward guest port " + guestPort + ": " + failure);
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        try {
            if (qmp != null) {
                qmp.close();
            }
        } catch (IOException e) {
            // the VM goes anyway
        }
        process.destroy();  // start-vm.sh's trap stops QEMU
        try {
            process.getOutputStream().close();  // ... and so does the end of its stdin
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.list(runDir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(runDir);
        } catch (IOException e) {
            // a temp directory left behind
        }
    }

    /** The VM did not come up. */
    static final class VmBootException extends Exception {
        private static final long serialVersionUID = 1L;

        VmBootException(String message) {
            super(message);
        }
    }
}
