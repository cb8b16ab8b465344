package org.iwarp4j.mpa;

/**
 * What keeps the memory of a {@link DirectPlacement} a valid target while octets are written into
 * it: registered memory whose STag the ULP may invalidate or deregister from another thread, and
 * whose invalidation must not return while a write into it is still running (RFC 5040 §8.1.1 #6's
 * "no placement after invalidation"; DDP's {@code StagTable} keeps the same rule for its own
 * copies). {@link MpaFrameDecoder} enters the guard around each copy into the memory, and {@link
 * PlacementRecvByteBufAllocator} from handing a socket read the memory until the read returned:
 * one entry per socket read, never one per octet.
 *
 * <p>{@link #enter()} may wait for an invalidation that is running, which is short; whoever
 * invalidates waits for the entries held, each of which ends with the read or copy it covers.
 */
public interface PlacementGuard {

    /** Memory that never stops being a valid target (a test's, or memory the decoder owns). */
    PlacementGuard ALWAYS = new PlacementGuard() {
        @Override
        public boolean enter() {
            return true;
        }

        @Override
        public void exit() {
        }
    };

    /**
     * Whether the memory may be written now. If so, it stays so, and its invalidation waits, until
     * {@link #exit()}; if not, nothing is held and the memory must not be written.
     */
    boolean enter();

    /** Ends the hold of a successful {@link #enter()}; any thread may call it. */
    void exit();
}
