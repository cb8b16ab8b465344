package org.iwarp4j.interop.siw;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for listeners on the peer: a fresh one per server, so no test waits for (or meets) the
 * previous test's connection on the same port.
 */
final class GuestPorts {

    private static final AtomicInteger NEXT = new AtomicInteger(7300);

    private GuestPorts() {
    }

    static int next() {
        return NEXT.getAndIncrement();
    }
}
