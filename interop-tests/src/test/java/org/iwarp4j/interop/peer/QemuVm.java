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
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

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
    /** Lines kept for the evidence of a guest that stopped responding: room for its backtraces. */
    private static final int CONSOLE_EVIDENCE = 150;
    /** The console is quiet once no line came for this long (a backtrace dump comes in a burst). */
    private static final Duration CONSOLE_SETTLE = Duration.ofSeconds(2);
    private static final Duration CONSOLE_DUMP_MAX = Duration.ofSeconds(25);
    /** How long the guest gets to print the first line after SysRq. */
    private static final Duration CONSOLE_FIRST_LINE = Duration.ofSeconds(10);
    /** QEMU's run state, when the guest is up and QEMU itself is fine. */
    static final String RUNNING = "running";
    /** QEMU's monitor answers at once unless QEMU itself is wedged. */
    private static final Duration QMP_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern KERNEL_FAILURE =
            Pattern.compile("Kernel panic|BUG:|Oops|general protection|WARNING: CPU:");
    private static final Pattern STALL = Pattern.compile("soft ?lockup|hung_task|hung task|(?i:rcu).{0,40}(?i:stall)");
    private static final int KERNEL_FAILURES_KEPT = 50;
    /** Boots per accelerator in this JVM: each boot has a console log of its own. */
    private static final Map<String, AtomicInteger> BOOTS = new ConcurrentHashMap<>();

    private final Process process;
    private final Path runDir;
    private final int sshPort;
    private final String accel;
    private final CompletableFuture<Void> anyOutput = new CompletableFuture<>();
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Deque<String> consoleTail = new ArrayDeque<>();
    private long consoleLines;
    private final List<NumberedLine> kernelFailures = new ArrayList<>();
    private final Map<Integer, InetSocketAddress> forwards = new ConcurrentHashMap<>();
    private final Path consoleLog;
    private volatile Qmp qmp;

    private QemuVm(Process process, Path runDir, int sshPort, String accel, Path consoleLog) throws IOException {
        this.process = process;
        this.runDir = runDir;
        this.sshPort = sshPort;
        this.accel = accel;
        this.consoleLog = consoleLog;
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
        // A VM replaced after it stopped responding keeps its log: console-tcg.log, console-tcg-2.log, ...
        int boot = BOOTS.computeIfAbsent(accel, a -> new AtomicInteger()).incrementAndGet();
        Path consoleLog = settings.logDir().resolve("console-" + accel + (boot == 1 ? "" : "-" + boot) + ".log");
        int sshPort = freeLoopbackPort();
        Process process = new ProcessBuilder(List.of("bash", settings.vmScripts().resolve("start-vm.sh").toString(),
                "--accel", accel, "--ssh-port", Integer.toString(sshPort),
                "--qmp", runDir.resolve("qmp.sock").toString(), "--vm-dir", vmDir.toString()))
                .redirectErrorStream(true)
                .start();
        QemuVm vm = new QemuVm(process, runDir, sshPort, accel, consoleLog);
        try {
            vm.ready.get(bootTimeout.toMillis(), TimeUnit.MILLISECONDS);
            vm.qmp = Qmp.connect(runDir.resolve("qmp.sock"), QMP_TIMEOUT);
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
        consoleLines++;
        if (isKernelFailure(line) && kernelFailures.size() < KERNEL_FAILURES_KEPT) {
            kernelFailures.add(new NumberedLine(consoleLines, line));
        }
        if (consoleTail.size() > CONSOLE_EVIDENCE) {
            consoleTail.removeFirst();
        }
        notifyAll();
    }

    /**
     * Whether the guest's kernel reports a failure of its own on this console line: a panic,
     * BUG, Oops, general protection fault or WARNING. Stalls are not (RCU stalls, soft lockups,
     * hung tasks, and a panic they cause): a guest starved by the host prints those too.
     */
    static boolean isKernelFailure(String line) {
        return KERNEL_FAILURE.matcher(line).find() && !STALL.matcher(line).find();
    }

    /** The console's line count so far. */
    synchronized long consoleMark() {
        return consoleLines;
    }

    /** The {@link #isKernelFailure kernel failure} lines printed after {@code mark}, numbered. */
    synchronized List<String> kernelFailuresSince(long mark) {
        return kernelFailures.stream().filter(l -> l.number() > mark)
                .map(l -> consoleLog.getFileName() + ":" + l.number() + ": " + l.line()).toList();
    }

    private record NumberedLine(long number, String line) {
    }

    private String consoleTail() {
        return consoleTail(CONSOLE_TAIL);
    }

    private synchronized String consoleTail(int lines) {
        return String.join("\n", consoleTail.stream().skip(Math.max(0, consoleTail.size() - lines)).toList());
    }

    String accel() {
        return accel;
    }

    /**
     * QEMU's run state ({@link Qmp#status}: {@value #RUNNING}, {@code paused}, ...), or why there
     * is none: QEMU exited (with {@code panic=-1} and {@code -no-reboot} a guest panic ends QEMU), or
     * its monitor did not answer within {@link #QMP_TIMEOUT}.
     */
    String state() {
        if (!process.isAlive()) {
            return "exited: start-vm.sh ended with status " + process.exitValue()
                    + " (a guest kernel panic ends QEMU: panic=-1 with -no-reboot)";
        }
        try {
            return bounded("query-status", Qmp::status);
        } catch (IOException e) {
            return "unknown: QMP query-status failed: " + e.getMessage();
        }
    }

    /** A QMP call. */
    private interface QmpCall<T> {
        T on(Qmp qmp) throws IOException;
    }

    /**
     * Runs {@code call} on a thread of its own, at most {@link #QMP_TIMEOUT}: a wedged QEMU would
     * block the caller's read for ever. On timeout the monitor connection is closed, which ends the
     * blocked read (and so frees {@link Qmp}'s lock); later calls then fail at once.
     *
     * @throws IOException if QMP failed, did not answer in time, or the caller was interrupted
     *     (the interrupt flag is then set again)
     */
    private <T> T bounded(String what, QmpCall<T> call) throws IOException {
        Qmp monitor = qmp;
        if (monitor == null) {
            throw new IOException("no QMP connection");
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread ask = new Thread(() -> {
            try {
                result.complete(call.on(monitor));
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "linux-peer-qmp");
        ask.setDaemon(true);
        ask.start();
        try {
            return result.get(QMP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            closeQuietly(monitor);
            throw new IOException("QMP did not answer " + what + " within " + QMP_TIMEOUT + " (monitor closed)");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted asking QMP " + what);
        }
    }

    private static void closeQuietly(Qmp monitor) {
        try {
            monitor.close();
        } catch (IOException e) {
            // closing is all we wanted
        }
    }

    /**
     * What QEMU's threads have got of the host's CPUs so far, summed over its threads from {@code
     * /proc/<pid>/task/<tid>/schedstat} of the {@code qemu-system-*} process under start-vm.sh:
     * time run and time waited on a run queue. Empty if there is no such process or it cannot be
     * read. Lets a probe tell a guest that hung from one whose QEMU the host gave no CPU.
     */
    Optional<VmLiveness.CpuSample> cpuTime() {
        return process.descendants()
                .filter(p -> p.info().command().map(c -> c.contains("qemu-system")).orElse(false))
                .findFirst()
                .flatMap(p -> schedstat(p.pid()));
    }

    private static Optional<VmLiveness.CpuSample> schedstat(long pid) {
        long ran = 0;
        long waited = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                // "<ns on a CPU> <ns waiting on a run queue> <time slices>" (Documentation/scheduler/sched-stats)
                String[] fields = Files.readString(task.resolve("schedstat"), StandardCharsets.US_ASCII).strip().split(" ");
                ran += Long.parseLong(fields[0]);
                waited += Long.parseLong(fields[1]);
            }
            return Optional.of(new VmLiveness.CpuSample(ran, waited));
        } catch (IOException | RuntimeException e) {  // a thread that ended meanwhile, no schedstat
            return Optional.empty();
        }
    }

    /** The guest's last console lines and where all of them are, for failure reports. */
    String consoleReport() {
        return "--- the guest's last console lines, at most " + CONSOLE_EVIDENCE + " (all of them: " + consoleLog
                + ") ---\n" + consoleTail(CONSOLE_EVIDENCE);
    }

    /**
     * Asks a guest that no longer answers ssh, but whose CPUs QEMU still runs, to write on its
     * console what its CPUs and blocked tasks are doing: magic SysRq over the emulated PS/2
     * keyboard (QMP {@code send-key}), enabled by {@code sysrq_always_enabled} on the kernel
     * command line. First SysRq-9 (console log level 9: with {@code quiet} the dumps, printed at
     * KERN_INFO, would not reach the console), then SysRq-l (backtraces of all active CPUs) and
     * SysRq-w (tasks blocked in uninterruptible sleep). A guest whose CPUs are stuck with
     * interrupts off prints nothing, which says something too. Waits for the guest to
     * print its first line (at most {@link #CONSOLE_FIRST_LINE}), then until the console has been
     * quiet for {@link #CONSOLE_SETTLE}, at most {@link #CONSOLE_DUMP_MAX} in all; returns what it did.
     */
    String askForBacktraces() {
        long before;
        synchronized (this) {
            before = consoleLines;
        }
        try {
            for (String key : List.of("9", "l", "w")) {
                String keys = "{\"keys\": [{\"type\": \"qcode\", \"data\": \"alt\"}, {\"type\": \"qcode\", "
                        + "\"data\": \"sysrq\"}, {\"type\": \"qcode\", \"data\": \"" + key + "\"}]}";
                bounded("send-key", m -> {
                    m.execute("send-key", keys);
                    return null;
                });
            }
        } catch (IOException | RuntimeException e) {
            return "SysRq-9, -l, -w not sent: " + e;
        }
        long deadline = System.nanoTime() + CONSOLE_DUMP_MAX.toNanos();
        synchronized (this) {
            try {
                // A TCG guest under load can take seconds to print the first line of the dump.
                long firstBy = System.nanoTime() + CONSOLE_FIRST_LINE.toNanos();
                while (consoleLines == before && System.nanoTime() < firstBy) {
                    TimeUnit.NANOSECONDS.timedWait(this, firstBy - System.nanoTime());
                }
                long seen = before;
                while (seen != consoleLines && System.nanoTime() < deadline) {
                    seen = consoleLines;
                    TimeUnit.NANOSECONDS.timedWait(this, Math.min(CONSOLE_SETTLE.toNanos(), deadline - System.nanoTime()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long printed = consoleLines - before;
            return "sent SysRq-9, -l, -w over QMP send-key; the console printed " + printed + " line(s) since"
                    + (printed == 0 ? " (none within " + CONSOLE_FIRST_LINE + ")"
                            : ", the last " + Math.min(printed, CONSOLE_EVIDENCE) + " of them below");
        }
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
                String command = "hostfwd_add n0 tcp:" + LOOPBACK.getHostAddress() + ":" + hostPort
                        + "-" + VmPeer.GUEST_ADDRESS.getHostAddress() + ":" + guestPort;
                failure = bounded("hostfwd_add", m -> m.humanCommand(command));
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
        // Taken now: once bash is gone, QEMU (then orphaned) is no longer among its descendants.
        List<ProcessHandle> descendants = process.descendants().toList();
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
        // A QEMU that ignored SIGTERM (wedged) would outlive its script and keep its CPU.
        for (ProcessHandle child : descendants) {
            if (child.isAlive()) {
                child.destroyForcibly();
            }
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
