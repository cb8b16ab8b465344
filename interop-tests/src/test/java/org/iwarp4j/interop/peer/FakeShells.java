package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stand-ins for ssh in the harness's own tests, run on this host: a shell that behaves like
 * ssh into a guest that answers, hangs, or cannot be reached, and counts what it was asked.
 */
final class FakeShells {

    /** What ssh into the guest does. */
    enum Guest {
        /** Runs the command. */
        ANSWERS,
        /** Never comes back (a hung guest behind a live TCP connection). */
        HANGS,
        /** ssh gives up at once with its own failure, as after the master connection died. */
        UNREACHABLE
    }

    static final String BANNER_TIMEOUT = "Connection timed out during banner exchange";

    private FakeShells() {
    }

    /** A shell whose behaviour follows {@link #guest}, switchable while commands run. */
    static final class Ssh implements PeerShell {
        private final LocalShell local = new LocalShell();
        final AtomicInteger launches = new AtomicInteger();
        volatile Guest guest = Guest.ANSWERS;

        Ssh() {
        }

        Ssh(Guest guest) {
            this.guest = guest;
        }

        /** Launch n behaves as {@code script[n]}; every launch after the script as its last entry. */
        Ssh(Guest... script) {
            this.guest = script[script.length - 1];
            this.script = List.of(script);
        }

        private List<Guest> script = List.of();

        @Override
        public Process launch(String shellCommand) throws IOException {
            int n = launches.getAndIncrement();
            Guest guest = n < script.size() ? script.get(n) : this.guest;
            return switch (guest) {
                case ANSWERS -> local.launch(shellCommand);
                case HANGS -> local.launch("exec sleep 600");
                case UNREACHABLE -> local.launch("echo 'ssh: connect to host 127.0.0.1 port 10022: " + BANNER_TIMEOUT
                        + "' >&2; exit 255");
            };
        }
    }
}
