package org.iwarp4j.nfs.internal.client4;

import java.time.Duration;
import org.iwarp4j.oncrpc.RpcTimeoutException;

/**
 * The client's side of a session's fore channel slot table (RFC 8881 §2.10.6.1): one sequence id
 * per slot, a slot busy from the call until its reply. A slot's sequence id advances when the
 * server answered SEQUENCE on it (whatever the later operations did, §2.10.6.1.2); when SEQUENCE
 * itself failed, or no reply came (an RPC-over-RDMA error included, ULB-R-029), the sequence id
 * stays and the slot is used again with it.
 */
final class SlotTable {

    private final int[] sequenceIds;
    private final boolean[] busy;

    SlotTable(int slots) {
        this.sequenceIds = new int[slots];
        this.busy = new boolean[slots];
    }

    int size() {
        return sequenceIds.length;
    }

    /** A free slot, the lowest (§2.10.6.1: use low slots first), waiting at most {@code timeout}. */
    synchronized int acquire(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (int i = 0; i < busy.length; i++) {
                if (!busy[i]) {
                    busy[i] = true;
                    return i;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RpcTimeoutException("no free session slot within " + timeout);
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The sequence id the next call on {@code slot} carries. */
    synchronized int nextSequenceId(int slot) {
        return sequenceIds[slot] + 1;
    }

    /** The highest slot in use (sa_highest_slotid). */
    synchronized int highestInUse() {
        for (int i = busy.length - 1; i >= 0; i--) {
            if (busy[i]) {
                return i;
            }
        }
        return 0;
    }

    /** Frees {@code slot}; {@code advanced} if the server answered its SEQUENCE with NFS4_OK. */
    synchronized void release(int slot, boolean advanced) {
        if (advanced) {
            sequenceIds[slot]++;
        }
        busy[slot] = false;
        notifyAll();
    }
}
