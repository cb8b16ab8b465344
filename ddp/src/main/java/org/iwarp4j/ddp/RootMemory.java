package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;

/**
 * The memory under a registered {@link ByteBuf} as registration found it, so that every use can
 * tell whether it is still there: the buffer at the root of the registered one (the buffer its
 * slices, duplicates and wrappers derive from, whose {@code unwrap()} is {@code null}), with that
 * root's capacity and its memory address or backing array.
 *
 * <p>A derived buffer reads and writes its root at a fixed offset and keeps the capacity it was made
 * with: after {@code capacity(n)} on the root (a shrink, or a growth that moves the octets to new
 * memory or a new array) a slice still accepts every index it accepted at registration, while its
 * address follows the root's new memory. A check against the slice alone then lets a placement
 * write past the root's new end (by address, nothing below checks it) or into memory that is no
 * longer the registered memory. Only the root tells.
 *
 * <p>Where the memory has neither an address nor an array (direct memory whose address Netty does
 * not know, as on Java 17 to 21 with {@code io.netty.noUnsafe}), only the capacity and the reference
 * count are compared; such memory is only ever written through NIO views, which its root
 * bounds-checks against its current capacity. A change that races a placement is not
 * seen by that placement, as a release that races it is not (see {@link TaggedBuffer}).
 */
final class RootMemory {

    /** A capacity no buffer has: memory that could not be looked at when registered is never as registered. */
    private static final int UNUSABLE = -1;

    private final ByteBuf root;
    private final int capacity;
    private final boolean hasAddress;
    private final long address;
    private final byte[] array;

    RootMemory(ByteBuf memory) {
        ByteBuf r = memory;
        for (ByteBuf parent = r.unwrap(); parent != null; parent = parent.unwrap()) {
            r = parent;
        }
        root = r;
        int c;
        boolean a;
        long at = 0;
        byte[] arr = null;
        try {
            c = r.capacity();
            a = r.hasMemoryAddress();
            if (a) {
                at = r.memoryAddress();
            }
            if (r.hasArray()) {
                arr = r.array();
            }
        } catch (RuntimeException released) {
            c = UNUSABLE;
            a = false;
        }
        capacity = c;
        hasAddress = a;
        address = at;
        array = arr;
    }

    /** Whether the root is not released and has the capacity and the address or array it had at registration. */
    boolean unchanged() {
        ByteBuf r = root;
        try {
            return r.refCnt() > 0 && r.capacity() == capacity
                    && r.hasMemoryAddress() == hasAddress && (!hasAddress || r.memoryAddress() == address)
                    && (array == null ? !r.hasArray() : r.hasArray() && r.array() == array);
        } catch (RuntimeException released) {
            return false; // e.g. IllegalReferenceCountException from a released root's accessors
        }
    }
}
