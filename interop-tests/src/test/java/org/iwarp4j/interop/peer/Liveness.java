package org.iwarp4j.interop.peer;

import java.util.Optional;

/**
 * Whether the peer still answers. Asked only when a command failed in a way that can mean the
 * peer itself is gone: the transport failed (ssh's exit 255) or the command outlived its timeout.
 * A probe that confirms it is remembered, so that every later command on the same peer fails at
 * once with the same evidence instead of waiting out its own timeout (a hung guest would
 * otherwise cost minutes per cleanup step).
 */
interface Liveness {

    /** This host as the peer: it runs as long as we do, so there is nothing to probe. */
    Liveness ASSUMED = new Liveness() {
        @Override
        public Optional<String> gone() {
            return Optional.empty();
        }

        @Override
        public Optional<String> probe(String trigger) {
            return Optional.empty();
        }
    };

    /** The evidence if the peer is already known to have stopped responding; never probes. */
    Optional<String> gone();

    /**
     * Probes the peer (bounded in time) unless it is already known gone.
     *
     * @param trigger what made us ask (the failed command and how it failed), for the evidence
     * @return the evidence that it stopped responding (then remembered), or empty if it answers
     */
    Optional<String> probe(String trigger);
}
