package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A {@link PlacementAdvisor}'s answer: the ULPDU's first {@link #headerLength()} octets are the
 * ULP's header, and its remaining octets belong at index 0 onwards of {@link #target()}.
 */
public final class DirectPlacement {

    private final int headerLength;
    private final ByteBuf target;
    private final PlacementGuard guard;

    private DirectPlacement(int headerLength, ByteBuf target, PlacementGuard guard) {
        this.headerLength = headerLength;
        this.target = target;
        this.guard = guard;
    }

    /**
     * @param headerLength octets of the ULPDU before the payload, at most {@link PlacementAdvisor#HEAD_LENGTH}
     * @param target memory of exactly the payload's length (capacity), direct, one NIO buffer;
     *     ownership passes to the decoder, which releases it or hands it on inside the ULPDU
     */
    public static DirectPlacement of(int headerLength, ByteBuf target) {
        return of(headerLength, target, PlacementGuard.ALWAYS);
    }

    /**
     * A placement into memory that may stop being a valid target before the FPDU is complete
     * (registered memory whose STag the ULP may invalidate or deregister meanwhile): {@code guard}
     * is entered around every read into the memory and every copy into it; once it refuses, the
     * rest of the payload is only read, checked against the CRC and dropped, and the ULP's own
     * checks at delivery find the error.
     */
    public static DirectPlacement of(int headerLength, ByteBuf target, PlacementGuard guard) {
        if (headerLength < 0 || headerLength > PlacementAdvisor.HEAD_LENGTH) {
            throw new IllegalArgumentException("header length " + headerLength);
        }
        return new DirectPlacement(headerLength, Objects.requireNonNull(target, "target"),
                Objects.requireNonNull(guard, "guard"));
    }

    /**
     * As {@link #of(int, ByteBuf, PlacementGuard)} with a guard that only asks {@code valid}: no
     * hold, so an invalidation may return while a read into the memory is running. For tests and
     * memory that no other thread invalidates.
     */
    public static DirectPlacement of(int headerLength, ByteBuf target, BooleanSupplier valid) {
        Objects.requireNonNull(valid, "valid");
        return of(headerLength, target, new PlacementGuard() {
            @Override
            public boolean enter() {
                return valid.getAsBoolean();
            }

            @Override
            public void exit() {
            }
        });
    }

    /** What keeps the memory a valid target (see {@link #of(int, ByteBuf, PlacementGuard)}). */
    public PlacementGuard guard() {
        return guard;
    }

    public int headerLength() {
        return headerLength;
    }

    public ByteBuf target() {
        return target;
    }
}
