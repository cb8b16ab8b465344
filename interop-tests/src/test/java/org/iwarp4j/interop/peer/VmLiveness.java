package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the VM's guest still answers. First QEMU's own view (QMP {@code query-status}): only a
 * definitive state settles it without ssh (exited, paused, guest-panicked, internal-error,
 * shutdown); running, or a monitor that did not answer, leaves it to ssh. Then {@code true} over
 * ssh, through the open master connection and, if that gives no answer within {@link
 * #MASTER_ALONE} (or fails sooner), also over fresh connections, one after the other until the
 * probe timeout: a fast ssh failure (MaxSessions on the master, sshd's MaxStartups, slirp
 * resetting a connection) decides nothing. The guest answers if any attempt succeeds in time.
 * Otherwise it is gone, unless QEMU's threads waited for a CPU much of the time (the host starved it, see {@link
 * #STARVED_SHARE}) or the probe was interrupted: both leave no verdict ("unconfirmed"), and the
 * failure that made us ask stands as it is. The evidence says what QEMU reported, how the probes
 * ended, what QEMU's threads got of the CPUs, and what the guest last printed on its console (with {@code
 * quiet} the kernel still prints warnings there: RCU stalls, soft lockups, hung tasks, panics).
 */
final class VmLiveness implements Liveness {

    private static final Logger LOG = LoggerFactory.getLogger(VmLiveness.class);
    /**
     * How long the master connection alone gets (at most half the probe timeout): a live guest
     * runs {@code true} over it in well under a second, even under TCG; after this a fresh
     * connection is tried beside it.
     */
    static final Duration MASTER_ALONE = Duration.ofSeconds(5);
    /** How long a fresh connection that failed fast waits (for the master's answer) before the next. */
    static final Duration RETRY_PAUSE = Duration.ofSeconds(1);
    /** Fresh connections per probe at most: with {@link #RETRY_PAUSE} the deadline comes first. */
    private static final int MAX_FRESH = 200;
    /**
     * QEMU whose threads together waited for a CPU (runnable, not running: {@code
     * /proc/<pid>/task/<tid>/schedstat}) for at least 1/this of the probe's wall time was starved
     * by the host: no verdict then. Not QEMU's CPU time: a hung guest whose tasks all block is idle,
     * and its QEMU uses about 1 % of a CPU, as little as a starved one gets.
     */
    static final long STARVED_SHARE = 2;

    /** What QEMU's threads got of the host's CPUs so far, summed: time run, and time waited runnable. */
    record CpuSample(long ranNanos, long waitedNanos) {
    }
    /** QEMU run states in which the guest cannot answer, whatever ssh says. */
    private static final Set<String> SETTLED = Set.of("paused", "guest-panicked", "internal-error", "shutdown");

    private final PeerShell viaMaster;
    private final PeerShell fresh;
    private final Supplier<String> qemuState;
    private final Supplier<String> console;
    private final Supplier<String> askForBacktraces;
    private final Supplier<Optional<CpuSample>> qemuCpu;
    private final Duration timeout;
    private volatile String gone;

    /**
     * @param viaMaster runs commands over the open master connection
     * @param fresh runs commands over a new connection each
     * @param qemuState QEMU's run state ({@value QemuVm#RUNNING} while the guest runs), bounded in time
     * @param console the guest's last console lines and where the rest are
     * @param askForBacktraces makes a running guest that stopped answering print what its CPUs and
     *     blocked tasks do on its console, and says what it did ({@link QemuVm#askForBacktraces})
     * @param qemuCpu what QEMU's threads have got of the host's CPUs so far, if known ({@link QemuVm#cpuTime})
     * @param timeout how long the guest gets to answer, in all
     */
    VmLiveness(PeerShell viaMaster, PeerShell fresh, Supplier<String> qemuState, Supplier<String> console,
            Supplier<String> askForBacktraces, Supplier<Optional<CpuSample>> qemuCpu, Duration timeout) {
        this.viaMaster = viaMaster;
        this.fresh = fresh;
        this.qemuState = qemuState;
        this.console = console;
        this.askForBacktraces = askForBacktraces;
        this.qemuCpu = qemuCpu;
        this.timeout = timeout;
    }

    @Override
    public Optional<String> gone() {
        return Optional.ofNullable(gone);
    }

    @Override
    public synchronized Optional<String> probe(String trigger) {
        if (gone != null) {
            return Optional.of(gone);
        }
        // A caller interrupted (a JUnit timeout, say) must not turn every wait below into a
        // verdict: the probe runs with the flag cleared, and the flag is restored afterwards.
        boolean interrupted = Thread.interrupted();
        try {
            return decide(trigger);
        } catch (InterruptedException e) {
            interrupted = true;
            LOG.warn("probe of the peer VM interrupted, no verdict (unconfirmed) after: {}", firstLine(trigger));
            return Optional.empty();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Optional<String> decide(String trigger) throws InterruptedException {
        long start = System.nanoTime();
        String state = qemuState.get();
        String verdict;
        if (settled(state)) {
            verdict = "QEMU does not run the guest: its state is " + state;
        } else {
            // running, or QEMU's monitor gave no answer: only ssh can tell.
            Optional<CpuSample> cpuBefore = qemuCpu.get();
            Optional<String> noAnswer = sshProbe();
            if (noAnswer.isEmpty()) {
                LOG.info("the peer VM answered a probe in {} ms after: {}", (System.nanoTime() - start) / 1_000_000,
                        firstLine(trigger));
                return Optional.empty();
            }
            long elapsed = System.nanoTime() - start;
            Optional<CpuSample> cpuAfter = qemuCpu.get();
            String cpu = "";
            if (cpuBefore.isPresent() && cpuAfter.isPresent()) {
                long ran = cpuAfter.get().ranNanos() - cpuBefore.get().ranNanos();
                long waited = cpuAfter.get().waitedNanos() - cpuBefore.get().waitedNanos();
                cpu = "QEMU's threads during the probe: ran " + ran / 1_000_000 + " ms, waited for a CPU "
                        + waited / 1_000_000 + " ms, in " + elapsed / 1_000_000 + " ms";
                if (waited * STARVED_SHARE >= elapsed) {
                    // A guest whose QEMU could not get a CPU could not have answered: the host, not
                    // the guest, is the suspect, and the failure that made us ask stands as it is.
                    LOG.warn("probe of the peer VM unconfirmed: the host starved QEMU ({}) after: {}", cpu,
                            firstLine(trigger));
                    return Optional.empty();
                }
                cpu = "\n" + cpu;
            }
            // QEMU may have noticed meanwhile (a panic that ended it, say).
            state = qemuState.get();
            verdict = noAnswer.get() + cpu + (state.equals(QemuVm.RUNNING) ? "\nthe guest's own account: "
                    + askForBacktraces.get() : "");
        }
        gone = "first noticed: " + brief(trigger) + "\nprobe (" + (System.nanoTime() - start) / 1_000_000 + " ms): "
                + verdict + "\nQEMU run state (QMP query-status): " + state + "\n" + console.get();
        LOG.warn("the peer VM stopped responding:\n{}", gone);
        return Optional.of(gone);
    }

    /**
     * Whether QEMU's state alone settles it: the guest cannot answer. "running" does not (a hung
     * kernel runs to QEMU), and neither does a monitor that gave no answer ("unknown: ...").
     */
    static boolean settled(String state) {
        return state.startsWith("exited") || SETTLED.contains(state);
    }

    /**
     * Empty if {@code true} succeeded over either connection in time; else how the attempts
     * ended. Decided only at the deadline: ssh can fail fast for reasons of its own (the master's
     * MaxSessions, sshd's MaxStartups, slirp resetting a connection), so a fresh connection is
     * tried again after each failure until the time is up.
     */
    private Optional<String> sshProbe() throws InterruptedException {
        CompletableFuture<Void> answered = new CompletableFuture<>();
        List<Attempt> attempts = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            Attempt master = Attempt.launch("through the master connection", viaMaster, answered);
            attempts.add(master);
            Duration alone = MASTER_ALONE.compareTo(timeout.dividedBy(2)) < 0 ? MASTER_ALONE : timeout.dividedBy(2);
            if (await(CompletableFuture.anyOf(answered, master.ended), alone) && answered.isDone()) {
                return Optional.empty();
            }
            int fresh = 0;
            Attempt attempt = null;
            while (!answered.isDone() && System.nanoTime() < deadline && fresh < MAX_FRESH) {
                if (attempt == null || attempt.ended.isDone()) {  // one at a time: a hanging one is waited for
                    attempt = Attempt.launch("over a fresh connection (attempt " + ++fresh + ")", this.fresh, answered);
                    attempts.add(attempt);
                }
                await(CompletableFuture.anyOf(answered, attempt.ended), remaining(deadline));
                if (!answered.isDone() && attempt.ended.isDone()) {
                    // Failed fast: give the master a moment to answer before asking again.
                    await(answered, min(RETRY_PAUSE, remaining(deadline)));
                }
            }
            if (answered.isDone()) {
                return Optional.empty();
            }
        } catch (IOException e) {
            // Unconfirmed is not gone: the failure that made us ask stands as it is.
            LOG.warn("cannot run ssh to probe the peer VM: {}", e.toString());
            return Optional.empty();
        } finally {
            attempts.forEach(Attempt::stop);
        }
        StringBuilder report = new StringBuilder("QEMU runs the guest (or its monitor did not say), but it did not "
                + "run 'true' over ssh within " + timeout + ":");
        for (int i = 0; i < attempts.size(); i++) {
            if (i < 3 || i == attempts.size() - 1) {
                report.append("\n  ").append(attempts.get(i).outcome());
            } else if (i == 3) {
                report.append("\n  ...");
            }
        }
        return Optional.of(report.toString());
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) < 0 ? a : b;
    }

    /** True once {@code done} completed normally; false when the time runs out or it failed. */
    private static boolean await(CompletableFuture<?> answered, Duration time) throws InterruptedException {
        if (time.isNegative() || time.isZero()) {
            return answered.isDone() && !answered.isCompletedExceptionally();
        }
        try {
            answered.get(time.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    /** Characters of a trigger kept in the evidence, which every later exception on this peer repeats. */
    static final int TRIGGER_KEPT = 300;

    /** The trigger's start: the failed command and how it ended, not all it printed. */
    static String brief(String trigger) {
        String stripped = trigger.strip();
        return stripped.length() <= TRIGGER_KEPT ? stripped
                : stripped.substring(0, TRIGGER_KEPT) + " [... " + (stripped.length() - TRIGGER_KEPT) + " more characters]";
    }

    private static String firstLine(String text) {
        String stripped = text.strip();
        int nl = stripped.indexOf('\n');
        return nl < 0 ? stripped : stripped.substring(0, nl);
    }

    /** One {@code true} over ssh. */
    private static final class Attempt {
        private final String how;
        private final Process process;
        /** Completes once the process ended and, if it succeeded, the probe's answer was given. */
        private final CompletableFuture<Void> ended;
        private final CompletableFuture<String> stderr;

        private Attempt(String how, Process process, CompletableFuture<Void> ended) {
            this.how = how;
            this.process = process;
            this.ended = ended;
            this.stderr = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()), Attempt::daemon);
            CompletableFuture.runAsync(() -> drain(process.getInputStream()), Attempt::daemon);
        }

        static Attempt launch(String how, PeerShell shell, CompletableFuture<Void> answered) throws IOException {
            Process process = shell.launch("true");
            // Completes after answered does, for a success: waiting on it, answered is then up to date.
            CompletableFuture<Void> ended = process.onExit().thenAccept(p -> {
                if (p.exitValue() == 0) {
                    answered.complete(null);
                }
            });
            return new Attempt(how, process, ended);
        }

        void stop() {
            process.destroyForcibly();
        }

        String outcome() {
            String err;
            try {
                err = stderr.get(2, TimeUnit.SECONDS).strip();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err = "";
            } catch (ExecutionException | TimeoutException e) {
                err = "";
            }
            String how = this.how + ": ";
            try {
                if (process.waitFor(2, TimeUnit.SECONDS) && !endedByUs()) {
                    return how + "exit " + process.exitValue() + (err.isEmpty() ? "" : ", stderr: " + err);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return how + "no answer" + (err.isEmpty() ? "" : ", stderr: " + err);
        }

        private boolean endedByUs() {
            return process.exitValue() == 137 || process.exitValue() == 143;  // SIGKILL, SIGTERM from stop()
        }

        private static String drain(InputStream in) {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }

        private static void daemon(Runnable task) {
            Thread thread = new Thread(task, "linux-peer-probe");
            thread.setDaemon(true);
            thread.start();
        }
    }
}
