package org.iwarp4j.tools.bench.internal;

/**
 * One step of the latency tests' busy polling ({@link org.iwarp4j.tools.bench.PollMode#BUSY}), the
 * same for the RDMA ping-pong and the plain-TCP one: a spin hint, and every {@value #YIELD_EVERY}th
 * step a yield. The thread never sleeps, so nothing has to wake it; but unlike perftest's poll
 * loop on a hardware RNIC it shares the cores with the event loops that do the transfer (and, in
 * a loopback run, with the other end's threads): without the yield, on a machine with fewer free
 * cores than runnable threads, an event loop with an answer to deliver waited for the spinner's
 * time slice, and round trips took milliseconds.
 */
final class BusyWait {

    static final int YIELD_EVERY = 64;

    private BusyWait() {
    }

    /** After the {@code spins}th look (counting from 1) found nothing. */
    static void step(int spins) {
        if ((spins & (YIELD_EVERY - 1)) == 0) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }
}
