package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives tests a {@link LinuxPeer}: {@code @ExtendWith(LinuxPeerExtension.class)} on the class,
 * then a {@code LinuxPeer} parameter on a constructor, lifecycle or test method.
 *
 * <p>The peer is made once per test JVM, on first use, and stopped when the JVM's tests are
 * done: a local siw device if this host has one, else the VM from {@code vm/build-vm.sh}
 * (built first if its cache is missing). Where no peer can be made, the class is skipped with
 * the reason, unless {@code CI=true} or {@code -Diwarp4j.interop.required=true}: then it fails
 * with it. {@link PeerSettings} lists the knobs.
 *
 * <p>A VM guest can stop responding (its kernel hangs or panics under TCG). Then:
 * <ul>
 * <li>The class it happens in is <em>quarantined</em>: whatever fails in it (a test, or a
 *     {@code @BeforeAll}, {@code @BeforeEach}, {@code @AfterEach} or {@code @AfterAll} method)
 *     while a liveness probe ({@link VmLiveness}) confirms the guest is gone is reported as
 *     aborted, with a message starting {@value #QUARANTINED} and the evidence, not as a failure
 *     and not retried. A failure while the guest answers stays a failure.</li>
 * <li>The next class gets a fresh VM: before a class's peer is handed out (to its constructor,
 *     which for a {@code PER_CLASS} class runs before any {@code BeforeAllCallback}) or its
 *     {@code @BeforeAll} runs, the peer is probed once; a dead one is closed and replaced, and
 *     every later parameter resolves to the replacement. Rebooting the fixture repeats no test.</li>
 * </ul>
 */
public final class LinuxPeerExtension implements BeforeAllCallback, ExecutionCondition, ParameterResolver, TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

    static final String QUARANTINED = "quarantined: the peer VM stopped responding";
    private static final Logger LOG = LoggerFactory.getLogger(LinuxPeerExtension.class);

    /** Makes the peer: the real one, or a stand-in in the harness's own tests. */
    @FunctionalInterface
    interface Opener {
        LinuxPeer open(PeerSettings settings) throws PeerUnavailableException, InterruptedException;
    }

    private static final Opener CONFIGURED = LinuxPeerExtension::openConfigured;

    private final Opener opener;
    /** Peers from different openers never share a store entry: a stand-in never serves a real test. */
    private final ExtensionContext.Namespace namespace;

    public LinuxPeerExtension() {
        this(CONFIGURED);
    }

    LinuxPeerExtension(Opener opener) {
        this.opener = opener;
        this.namespace = ExtensionContext.Namespace.create(LinuxPeerExtension.class, opener);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Peers peers = peers(context);
        if (peers.forClass(context.getRequiredTestClass()).isEmpty()) {
            String reason = "no Linux iWARP peer: " + peers.failure;
            if (peers.settings.required()) {
                throw new IllegalStateException(reason + "\n(required because CI=true or -Diwarp4j.interop.required=true)");
            }
            Assumptions.abort(reason);
        }
    }

    /**
     * A test of a class whose peer is known gone is not run: it would only wait out its own
     * timeouts against a dead guest. It is skipped with {@value #QUARANTINED} and the evidence as
     * the reason. A condition rather than an abort in a {@code BeforeEachCallback}: then the
     * class's {@code @AfterEach} methods would still run, and their own failure would end up
     * suppressed under the abort, hidden.
     */
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("a class is checked in beforeAll");
        }
        Optional<String> gone = peers(context).knownGone();
        if (gone.isEmpty()) {
            return ConditionEvaluationResult.enabled("the peer is not known gone");
        }
        String in = context.getRequiredTestClass().getName() + ", test " + context.getDisplayName();
        peers(context).quarantined(in, "not run");
        return ConditionEvaluationResult.disabled(QUARANTINED + " (" + in + ")\nnot run: the peer was found gone "
                + "earlier in this class\n" + gone.get());
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LinuxPeer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Peers peers = peers(context);
        return peers.forClass(context.getRequiredTestClass()).orElseThrow(() -> new IllegalStateException(peers.failure));
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw quarantineIfPeerGone(context, failure, "test " + context.getDisplayName());
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw quarantineIfPeerGone(context, failure, "@BeforeAll");
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw quarantineIfPeerGone(context, failure, "@BeforeEach of " + context.getDisplayName());
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw quarantineIfPeerGone(context, failure, "@AfterEach of " + context.getDisplayName());
    }

    @Override
    public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        throw quarantineIfPeerGone(context, failure, "@AfterAll");
    }

    /**
     * {@code failure} itself, unless it is the kind of failure a dead peer causes and the peer has
     * stopped responding: then the quarantine, an abort with the evidence.
     * <ul>
     * <li>Only a failure whose own cause chain (suppressed exceptions do not count) holds a
     *     {@link PeerGoneException}, a {@link PeerCommandException}, a timeout or an {@link
     *     IOException} can be quarantined ({@link #peerShaped}). Anything else, an {@link
     *     AssertionError} about wrong bytes say, is our code's failure even if the guest then hung
     *     in a cleanup: it stays a failure, with the peer's evidence attached as a suppressed
     *     exception when the peer is known gone.</li>
     * <li>A peer-shaped failure carries the evidence in its {@code PeerGoneException}, or the
     *     peer is asked (a probe, or what is already known).</li>
     * <li>Even then, a guest whose kernel reported a failure of its own (panic, BUG, Oops,
     *     WARNING) on its console since the class started did not merely hang: our traffic may
     *     have broken it. That stays a failure, with the console lines and the evidence.</li>
     * </ul>
     */
    private Throwable quarantineIfPeerGone(ExtensionContext context, Throwable failure, String where) {
        if (failure instanceof TestAbortedException) {
            return failure;
        }
        Peers peers = peers(context);
        Class<?> testClass = context.getRequiredTestClass();
        Optional<String> evidence;
        if (!peerShaped(failure)) {
            evidence = peerGoneInChain(failure).or(peers::knownGone);
            if (evidence.isPresent() && !carriesEvidence(failure)) {
                failure.addSuppressed(new PeerStateNote("not quarantined: this failure is not one a dead peer "
                        + "causes, but the peer VM has stopped responding too:\n" + evidence.get()));
            }
            return failure;
        }
        evidence = peerGoneInChain(failure);
        if (evidence.isEmpty()) {
            evidence = peers.stoppedResponding(failure);
        }
        if (evidence.isEmpty()) {
            return failure;
        }
        String in = testClass.getName() + ", " + where;
        List<String> kernel = peers.kernelFailures(testClass);
        if (!kernel.isEmpty()) {
            failure.addSuppressed(new PeerStateNote("not quarantined: the peer VM stopped responding after its "
                    + "kernel reported a failure of its own during " + in + " (a defect to look at, not a hang):\n  "
                    + String.join("\n  ", kernel) + "\n" + evidence.get()));
            LOG.error("the peer's kernel failed during {}; reported as a failure:\n  {}", in, String.join("\n  ", kernel));
            return failure;
        }
        String here = String.valueOf(failure.getMessage()).strip();
        here = here.indexOf('\n') < 0 ? here : here.substring(0, here.indexOf('\n'));
        TestAbortedException quarantine = new TestAbortedException(QUARANTINED + " (" + in + ")\nhere: " + here
                + "\n" + evidence.get(), failure);
        peers.quarantined(in, here);
        // In full: surefire counts an aborted test as skipped but drops an aborted @AfterAll without
        // a trace, so the build log is where a quarantined cleanup is seen.
        LOG.warn("reported as aborted, the next class gets a fresh VM: {}", quarantine.getMessage());
        return quarantine;
    }

    /**
     * Whether {@code failure} or one of its causes is what a dead peer makes a test throw: a
     * failed peer command, a timeout (an RPC, an MPA startup, a future), or an I/O failure.
     */
    static boolean peerShaped(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PeerCommandException || t instanceof IOException || t instanceof TimeoutException
                    || t.getClass().getSimpleName().endsWith("TimeoutException")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static Optional<String> peerGoneInChain(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PeerGoneException gone) {
                return Optional.of(gone.evidence());
            }
        }
        return Optional.empty();
    }

    private static boolean carriesEvidence(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            for (Throwable suppressed : t.getSuppressed()) {
                if (suppressed instanceof PeerGoneException || suppressed instanceof PeerStateNote) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Evidence about the peer attached to a failure that stays a failure; no stack trace of its own. */
    static final class PeerStateNote extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PeerStateNote(String message) {
            super(message, null, false, false);
        }
    }

    private Peers peers(ExtensionContext context) {
        return context.getRoot().getStore(namespace).getOrComputeIfAbsent(Peers.class, k -> Peers.open(opener), Peers.class);
    }

    private static LinuxPeer openConfigured(PeerSettings settings) throws PeerUnavailableException, InterruptedException {
        return switch (settings.provider()) {
            case "local" -> LocalSiwPeer.detect().orElseThrow(() -> new PeerUnavailableException(
                    "iwarp4j.interop.peer=local, but this host has no siw device on a non-loopback netdev"));
            case "vm" -> VmPeer.open(settings);
            case "auto" -> {
                Optional<LocalSiwPeer> local = LocalSiwPeer.detect();
                yield local.isPresent() ? local.get() : VmPeer.open(settings);
            }
            default -> throw new PeerUnavailableException(
                    "iwarp4j.interop.peer must be auto, local or vm, not " + settings.provider());
        };
    }

    /**
     * The JVM's peer, or why there is none; replaced when it stopped responding. The root store
     * closes the last one at the end.
     */
    private static final class Peers implements AutoCloseable {

        final PeerSettings settings;
        private final Opener opener;
        /** Classes whose peer has been checked; each is checked once, before it first gets one. */
        private final Set<Class<?>> checked = new HashSet<>();
        /** Where each class's peer console stood when the class got its peer (see WatchedPeer#kernelFailuresSince). */
        private final Map<Class<?>, Long> consoleMarks = new HashMap<>();
        /** What was quarantined in this JVM: where, and the failure's first line. */
        private final List<String> quarantines = new ArrayList<>();
        private LinuxPeer peer;
        private String failure;
        private int opened;

        private Peers(PeerSettings settings, Opener opener) {
            this.settings = settings;
            this.opener = opener;
        }

        static Peers open(Opener opener) {
            Peers peers = new Peers(PeerSettings.fromEnvironment(), opener);
            peers.openPeer();
            return peers;
        }

        private void openPeer() {
            try {
                peer = opener.open(settings);
                failure = null;
                opened++;
                LOG.info("Linux iWARP peer: {}", peer.description());
            } catch (PeerUnavailableException e) {
                LOG.warn("no Linux iWARP peer: {}", e.getMessage());
                peer = null;
                failure = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                peer = null;
                failure = "interrupted while starting the peer";
            }
        }

        /**
         * The peer for {@code testClass}: the JVM's peer, checked once per class and replaced by a
         * fresh one if it stopped responding (in an earlier class, or unnoticed since).
         */
        synchronized Optional<LinuxPeer> forClass(Class<?> testClass) {
            boolean first = checked.isEmpty();
            if (checked.add(testClass) && !first && peer instanceof WatchedPeer watched) {
                Optional<String> gone = watched.liveness().gone()
                        .or(() -> watched.liveness().probe("the check before " + testClass.getName()));
                if (gone.isPresent()) {
                    replace(watched, testClass, gone.get());
                }
            }
            if (peer instanceof WatchedPeer watched) {
                consoleMarks.putIfAbsent(testClass, watched.consoleMark());
            }
            return Optional.ofNullable(peer);
        }

        private void replace(WatchedPeer dead, Class<?> testClass, String evidence) {
            LOG.warn("{} found the peer VM dead; closing it and booting a fresh one ({} opened in this JVM so far). "
                    + "Evidence:\n{}", testClass.getName(), opened, evidence);
            dead.close();
            long start = System.nanoTime();
            openPeer();
            long millis = (System.nanoTime() - start) / 1_000_000;
            if (peer != null) {
                LOG.warn("fresh peer VM for {} after {} ms: {}", testClass.getName(), millis, peer.description());
            } else {
                failure = "the peer VM stopped responding and a fresh one did not come up in " + millis + " ms: "
                        + failure + "\nthe old one's evidence:\n" + evidence;
            }
        }

        /** The evidence if the current peer is already known to have stopped responding; never probes. */
        synchronized Optional<String> knownGone() {
            return peer instanceof WatchedPeer watched ? watched.liveness().gone() : Optional.empty();
        }

        /** The kernel failure lines the current peer printed since {@code testClass} got it. */
        synchronized List<String> kernelFailures(Class<?> testClass) {
            return peer instanceof WatchedPeer watched
                    ? watched.kernelFailuresSince(consoleMarks.getOrDefault(testClass, 0L))
                    : List.of();
        }

        synchronized void quarantined(String where, String what) {
            quarantines.add(where + ": " + what);
        }

        /** The evidence that the current peer stopped responding, probing it unless already known. */
        synchronized Optional<String> stoppedResponding(Throwable failure) {
            if (!(peer instanceof WatchedPeer watched)) {
                return Optional.empty();
            }
            String what = String.valueOf(failure).strip();
            String trigger = "a failure: " + (what.indexOf('\n') < 0 ? what : what.substring(0, what.indexOf('\n')));
            return watched.liveness().gone().or(() -> watched.liveness().probe(trigger));
        }

        @Override
        public synchronized void close() {
            if (!quarantines.isEmpty()) {
                String summary = quarantines.size() + " quarantined (aborted because the peer VM stopped responding; "
                        + opened + " peer(s) opened in this JVM):\n  " + String.join("\n  ", quarantines);
                LOG.warn("{}", summary);
                // Surefire drops an aborted @AfterAll without a trace: this file is what is left.
                Path file = settings.logDir().resolve("quarantines.txt");
                try {
                    Files.createDirectories(file.getParent());
                    Files.writeString(file, Instant.now() + " " + summary + "\n", StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                } catch (IOException e) {
                    LOG.warn("cannot write {}: {}", file, e.toString());
                }
            }
            if (peer instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    LOG.warn("stopping the peer: {}", e.toString());
                }
            }
        }
    }
}
