package org.iwarp4j.rdmap;

import java.util.Objects;

/**
 * A piece of registered local memory named by a work request: {@code length} octets from
 * {@code offset} within a {@link MemoryRegion} (offset 0 = the region's first octet), like
 * ibv_sge's (addr, length, lkey).
 */
public final class ScatterGatherElement {

    private final MemoryRegion region;
    private final long offset;
    private final int length;

    public ScatterGatherElement(MemoryRegion region, long offset, int length) {
        this.region = Objects.requireNonNull(region);
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("offset and length must not be negative");
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
