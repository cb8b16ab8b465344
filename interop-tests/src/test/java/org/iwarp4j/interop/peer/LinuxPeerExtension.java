package org.iwarp4j.interop.peer;

import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
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
 */
public final class LinuxPeerExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LinuxPeerExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        Peers peers = peers(context);
        if (peers.peer.isEmpty()) {
            String reason = "no Linux iWARP peer: " + peers.failure;
            if (peers.settings.required()) {
                throw new IllegalStateException(reason + "\n(required because CI=true or -Diwarp4j.interop.required=true)");
            }
            Assumptions.abort(reason);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LinuxPeer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return peers(context).peer.orElseThrow(() -> new IllegalStateException(peers(context).failure));
    }

    private static Peers peers(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Peers.class, k -> Peers.open(), Peers.class);
    }

    /** The JVM's one peer, or why there is none; the root store closes it at the end. */
    private static final class Peers implements AutoCloseable {
        private static final Logger LOG = LoggerFactory.getLogger(LinuxPeerExtension.class);

        final PeerSettings settings;
        final Optional<LinuxPeer> peer;
        final String failure;

        private Peers(PeerSettings settings, LinuxPeer peer, String failure) {
            this.settings = settings;
            this.peer = Optional.ofNullable(peer);
            this.failure = failure;
        }

        static Peers open() {
            PeerSettings settings = PeerSettings.fromEnvironment();
            try {
                LinuxPeer peer = switch (settings.provider()) {
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
                LOG.info("Linux iWARP peer: {}", peer.description());
                return new Peers(settings, peer, null);
            } catch (PeerUnavailableException e) {
                LOG.warn("no Linux iWARP peer: {}", e.getMessage());
                return new Peers(settings, null, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Peers(settings, null, "interrupted while starting the peer");
            }
        }

        @Override
        public void close() {
            peer.filter(AutoCloseable.class::isInstance).ifPresent(p -> {
                try {
                    ((AutoCloseable) p).close();
                } catch (Exception e) {
                    LOG.warn("stopping the peer: {}", e.toString());
                }
            });
        }
    }
}
