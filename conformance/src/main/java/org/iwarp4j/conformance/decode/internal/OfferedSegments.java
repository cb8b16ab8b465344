package org.iwarp4j.conformance.decode.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;

/**
 * The segments one Requester's outstanding Calls offered (for RDMA Writes, or for RDMA Reads), by
 * handle, to find the one a transfer lands in (RPC-R-081, RPC-R-082) without looking at every
 * outstanding Call. Per handle a treap ordered by offset, each node knowing the segment of its
 * subtree that reaches furthest: a segment holding {@code [to, to + length)} exists exactly when,
 * among those that start at or before {@code to}, the furthest-reaching one reaches {@code to +
 * length}. Adding, removing and finding cost O(log n) expected, however the segments overlap.
 *
 * <p>The priorities are drawn at random for each run: priorities a capture could predict (they were
 * a hash of the insertion number) let one Call's 65,536 segments, offered in the right order, make
 * a treap a chain, each insertion O(n) and the recursion of split and merge n deep, past the
 * thread's stack. What {@link #find} and {@link #near} answer does not depend on the tree's shape
 * (among segments that reach equally far, the one added first wins), so every run decodes alike.
 *
 * <p>Offsets are unsigned 64-bit (RFC 8166 §4.3.1); a segment is kept by its last octet, so one
 * that ends at the top of the offset space needs no 2^64. Zero-length segments hold nothing and
 * are not kept.
 *
 * @param <T> what a segment stands for (its Call and chunk)
 */
final class OfferedSegments<T> {

    private static final class Node<T> {
        final RdmaSegment segment;
        final long last;
        final long id;
        final T value;
        final int priority;
        Node<T> left;
        Node<T> right;
        /** The node of this subtree whose segment reaches furthest. */
        Node<T> furthest;

        Node(RdmaSegment segment, long last, long id, T value, int priority) {
            this.segment = segment;
            this.last = last;
            this.id = id;
            this.value = value;
            this.priority = priority;
            this.furthest = this;
        }

        /** Orders by offset (unsigned), then by id. */
        int compareTo(long offset, long otherId) {
            int c = Long.compareUnsigned(segment.offset(), offset);
            return c != 0 ? c : Long.compare(id, otherId);
        }

        void update() {
            furthest = further(further(this, left == null ? null : left.furthest),
                    right == null ? null : right.furthest);
        }
    }

    private final Map<Integer, Node<T>> roots = new HashMap<>();
    private final Map<Integer, List<Node<T>>> byOwner = new HashMap<>();
    private final SplittableRandom priorities = new SplittableRandom();
    private long nextId;

    /** Keeps {@code segment}, standing for {@code value}, until {@link #removeOwner} of {@code owner}. */
    void add(int owner, RdmaSegment segment, T value) {
        if (segment.length() == 0) {
            return;
        }
        long last = segment.offset() + segment.length() - 1;
        if (Long.compareUnsigned(last, segment.offset()) < 0) {
            last = -1L; // past the top of the offset space: it ends there
        }
        Node<T> node = new Node<>(segment, last, nextId++, value, priorities.nextInt());
        Node<T>[] parts = split(roots.get(segment.handle()), segment.offset(), node.id);
        roots.put(segment.handle(), merge(merge(parts[0], node), parts[1]));
        byOwner.computeIfAbsent(owner, k -> new ArrayList<>()).add(node);
    }

    /** Forgets every segment {@code owner} added. */
    void removeOwner(int owner) {
        List<Node<T>> nodes = byOwner.remove(owner);
        if (nodes == null) {
            return;
        }
        for (Node<T> n : nodes) {
            int handle = n.segment.handle();
            Node<T>[] before = split(roots.get(handle), n.segment.offset(), n.id);
            Node<T>[] after = split(before[1], n.segment.offset(), n.id + 1);
            Node<T> root = merge(before[0], after[1]);
            if (root == null) {
                roots.remove(handle);
            } else {
                roots.put(handle, root);
            }
        }
    }

    /** What a segment of {@code handle} that holds {@code [to, to + length)} stands for; null if none. */
    T find(int handle, long to, long length) {
        long last = to + length - 1;
        if (length <= 0 || Long.compareUnsigned(last, to) < 0) {
            return null;
        }
        Node<T> best = null;
        long steps = 0;
        for (Node<T> n = roots.get(handle); n != null; steps++) {
            if (Long.compareUnsigned(n.segment.offset(), to) <= 0) {
                // n and all of its left subtree start at or before to.
                best = further(further(best, n), n.left == null ? null : n.left.furthest);
                n = n.right;
            } else {
                n = n.left;
            }
        }
        LookupSteps.add(steps);
        return best != null && Long.compareUnsigned(best.last, last) >= 0 ? best.value : null;
    }

    /**
     * A segment of {@code handle} near {@code to} (the last that starts at or before it, else the
     * first after it), to name in a violation; null if no outstanding Call offered the handle.
     */
    RdmaSegment near(int handle, long to) {
        Node<T> below = null;
        Node<T> above = null;
        long steps = 0;
        for (Node<T> n = roots.get(handle); n != null; steps++) {
            if (Long.compareUnsigned(n.segment.offset(), to) <= 0) {
                below = n;
                n = n.right;
            } else {
                above = n;
                n = n.left;
            }
        }
        LookupSteps.add(steps);
        return below != null ? below.segment : above != null ? above.segment : null;
    }

    /** The one of {@code a} and {@code b} that reaches further; of two that reach as far, the first added. */
    private static <T> Node<T> further(Node<T> a, Node<T> b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        int c = Long.compareUnsigned(b.last, a.last);
        return c > 0 || c == 0 && b.id < a.id ? b : a;
    }

    /** {nodes before (offset, id), nodes from it on}. */
    @SuppressWarnings("unchecked")
    private static <T> Node<T>[] split(Node<T> n, long offset, long id) {
        if (n == null) {
            return new Node[2];
        }
        if (n.compareTo(offset, id) < 0) {
            Node<T>[] parts = split(n.right, offset, id);
            n.right = parts[0];
            n.update();
            parts[0] = n;
            return parts;
        }
        Node<T>[] parts = split(n.left, offset, id);
        n.left = parts[1];
        n.update();
        parts[1] = n;
        return parts;
    }

    /** Joins two treaps, every node of {@code a} before every node of {@code b}. */
    private static <T> Node<T> merge(Node<T> a, Node<T> b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.priority > b.priority) {
            a.right = merge(a.right, b);
            a.update();
            return a;
        }
        b.left = merge(a, b.left);
        b.update();
        return b;
    }
}
