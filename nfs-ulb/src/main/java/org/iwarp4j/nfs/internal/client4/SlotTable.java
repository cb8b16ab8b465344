package org.iwarp4j.nfs.internal.client4;

import java.time.Duration;
import org.iwarp4j.oncrpc.RpcTimeoutException;

/**
 * The client's side of a session's fore channel slot table (RFC 8881 §2.10.6.1): one sequence id
 * per slot, a slot busy from the call until its reply.
 *
 * <p>How a call ends decides what becomes of its slot ({@link Outcome}):
 * <ul>
 * <li>the server answered SEQUENCE with NFS4_OK: the sequence id advances, whatever the later
 *     operations did (§2.10.6.1.2), and the slot is free again;</li>
 * <li>a reply came but SEQUENCE itself failed, or the server provably never processed the call
 *     (an RPC-level rejection, an RPC-over-RDMA RDMA_ERROR, ULB-R-029, or the transport refused to
 *     send it): the sequence id stays and the slot is used again with it;</li>
 * <li>no reply came (timeout, lost connection, cancelled call, an undecodable reply): the slot is
 *     <em>retired</em> for the rest of the session. The server may or may not have executed the
 *     call; using the slot's next sequence id could be NFS4ERR_SEQ_MISORDERED, the same one for a
 *     different request would be answered from the replay cache with the old request's reply or
 *     NFS4ERR_SEQ_FALSE_RETRY (§2.10.6.1, §2.10.6.2). Replaying the very same request is what
 *     §2.10.6.2 would allow, but the client's transport has already forgotten the call's xid and
 *     its WRITE payloads may be released, so it cannot; retiring the slot is the choice that can
 *     never confuse two requests. A retired slot still counts as in use for sa_highest_slotid,
 *     since the server may still be working on it. The client does not re-establish sessions, so a
 *     retired slot comes back only with a new connection.</li>
 * </ul>
 *
 * <p>The server may also ask for fewer slots (sr_target_highest_slotid, sr_highest_slotid,
 * §2.10.6.1, §18.46.3): {@link #limit} keeps new calls on slots up to the lower of the two.
 */
final class SlotTable {

    /** How a call on a slot ended. */
    enum Outcome {
        /** SEQUENCE succeeded: advance the sequence id. */
        ADVANCED,
        /** The server did not execute SEQUENCE: the same sequence id is used again. */
        NOT_EXECUTED,
        /** Unknown whether the server executed the call: never use the slot again in this session. */
        UNKNOWN
    }

    /**
     * Every usable slot is retired: the session can carry no more calls, and the client creates a
     * new one (RFC 8881 §2.10.6.1; see {@link Nfs4Connection}).
     */
    static final class AllRetiredException extends RpcTimeoutException {
        AllRetiredException(int usable) {
            super("every usable session slot (" + usable + ") is retired after calls without a reply");
        }
    }

    private final int[] sequenceIds;
    private final boolean[] busy;
    private final boolean[] retired;
    private int usable;

    SlotTable(int slots) {
        this.sequenceIds = new int[slots];
        this.busy = new boolean[slots];
        this.retired = new boolean[slots];
        this.usable = slots;
    }

    int size() {
        return sequenceIds.length;
    }

    /** Slots new calls may use: the server's target, at most the table's size. */
    synchronized int usable() {
        return usable;
    }

    /** Slots retired after a call without a reply. */
    synchronized int retired() {
        int n = 0;
        for (boolean r : retired) {
            n += r ? 1 : 0;
        }
        return n;
    }

    /**
     * Applies a SEQUENCE reply's sr_highest_slotid and sr_target_highest_slotid (RFC 8881 §18.46.3):
     * new calls use slots 0 up to the lower of the two, never more than the table holds. Calls
     * already in flight on higher slots complete normally.
     */
    synchronized void limit(int highestSlot, int targetHighestSlot) {
        long highest = Math.min(Integer.toUnsignedLong(highestSlot), Integer.toUnsignedLong(targetHighestSlot));
        int n = (int) Math.min(sequenceIds.length, highest + 1);
        if (n != usable) {
            usable = Math.max(1, n);
            notifyAll();
        }
    }

    /**
     * A free slot, the lowest (§2.10.6.1: use low slots first), waiting at most {@code timeout};
     * {@link RpcTimeoutException} also when every usable slot is retired.
     */
    synchronized int acquire(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean anyAlive = false;
            for (int i = 0; i < usable; i++) {
                if (retired[i]) {
                    continue;
                }
                anyAlive = true;
                if (!busy[i]) {
                    busy[i] = true;
                    return i;
                }
            }
            if (!anyAlive) {
                throw new AllRetiredException(usable);
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

    /** The highest slot in use (sa_highest_slotid), retired slots included. */
    synchronized int highestInUse() {
        for (int i = busy.length - 1; i >= 0; i--) {
            if (busy[i] || retired[i]) {
                return i;
            }
        }
        return 0;
    }

    /** Frees {@code slot}, or retires it, as {@code outcome} says. */
    synchronized void release(int slot, Outcome outcome) {
        switch (outcome) {
            case ADVANCED -> sequenceIds[slot]++;
            case NOT_EXECUTED -> { }
            case UNKNOWN -> retired[slot] = true;
        }
        busy[slot] = false;
        notifyAll();
    }
}
