package org.iwarp4j.rdmap;

import java.util.Objects;

/**
 * A piece of registered local memory named by a work request: {@code length} octets from
 * {@code offset} within a {@link MemoryRegion} (offset 0 = the region's first octet), like
 * ibv_sge's (addr, length, lkey).
 *
 * <p>Whether the octets lie within the region is checked when the work request is carried out:
 * one that ends past its region completes {@link WorkCompletionStatus#LOCAL_LENGTH_ERROR}, and the
 * queue pair goes on. An element that ends past 2^31 - 1 could lie in no region at all (a region
 * is a {@code ByteBuf}'s readable octets, whose indexes are {@code int}s), so it is refused here,
 * as Java's own index checks refuse an impossible range; this also keeps {@code offset + length}
 * from overflowing wherever it is computed.
 */
public final class ScatterGatherElement {

    /** The most octets a region can have, the end no element may pass: a {@code ByteBuf}'s largest capacity. */
    private static final long MAX_END = Integer.MAX_VALUE;

    private final MemoryRegion region;
    private final long offset;
    private final int length;

    /**
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative, or
     *         {@code offset + length} passes 2^31 - 1 (no region is that long)
     */
    public ScatterGatherElement(MemoryRegion region, long offset, int length) {
        this.region = Objects.requireNonNull(region);
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("offset and length must not be negative: offset " + offset
                    + ", length " + length);
        }
        if (offset > MAX_END - length) {
            throw new IllegalArgumentException("offset " + offset + " + length " + length + " passes 2^31 - 1,"
                    + " the most octets a region can have");
        }
        this.offset = offset;
        this.length = length;
    }

    public MemoryRegion region() {
        return region;
    }

    public long offset() {
        return offset;
    }

    public int length() {
        return length;
    }

    @Override
    public String toString() {
        return "SGE{" + region + " +" + offset + " len " + length + '}';
    }
}
