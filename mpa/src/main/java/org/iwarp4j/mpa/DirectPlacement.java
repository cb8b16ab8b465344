package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A {@link PlacementAdvisor}'s answer: the ULPDU's first {@link #headerLength()} octets are the
 * ULP's header, and its remaining octets belong at index 0 onwards of {@link #target()}.
 */
public final class DirectPlacement {

    private static final BooleanSupplier ALWAYS = () -> true;

    private final int headerLength;
    private final ByteBuf target;
    private final BooleanSupplier valid;

    private DirectPlacement(int headerLength, ByteBuf target, BooleanSupplier valid) {
        this.headerLength = headerLength;
        this.target = target;
        this.valid = valid;
    }

    /**
     * @param headerLength octets of the ULPDU before the payload, at most {@link PlacementAdvisor#HEAD_LENGTH}
     * @param target memory of exactly the payload's length (capacity), direct, one NIO buffer;
     *     ownership passes to the decoder, which releases it or hands it on inside the ULPDU
     */
    public static DirectPlacement of(int headerLength, ByteBuf target) {
        return of(headerLength, target, ALWAYS);
    }

    /**
     * A placement into memory that may stop being a valid target before the FPDU is complete
     * (registered memory whose STag the ULP may invalidate or deregister meanwhile): {@code valid}
     * is asked before every read into the memory and before every copy into it; once it says
     * {@code false}, the rest of the payload is only read, checked against the CRC and dropped, and
     * the ULP's own checks at delivery find the error.
     */
    public static DirectPlacement of(int headerLength, ByteBuf target, BooleanSupplier valid) {
        if (headerLength < 0 || headerLength > PlacementAdvisor.HEAD_LENGTH) {
            throw new IllegalArgumentException("header length " + headerLength);
        }
        return new DirectPlacement(headerLength, Objects.requireNonNull(target, "target"),
                Objects.requireNonNull(valid, "valid"));
    }

    /** Whether the memory may still be written (see {@link #of(int, ByteBuf, BooleanSupplier)}). */
    public BooleanSupplier valid() {
        return valid;
    }

    public int headerLength() {
        return headerLength;
    }

    public ByteBuf target() {
        return target;
    }
}
