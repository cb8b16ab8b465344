package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A {@link PlacementAdvisor}'s answer: the ULPDU's first {@link #headerLength()} octets are the
 * ULP's header, and its remaining octets belong at index 0 onwards of {@link #target()}.
 */
public final class DirectPlacement {

    private final int headerLength;
    private final ByteBuf target;

    private DirectPlacement(int headerLength, ByteBuf target) {
        this.headerLength = headerLength;
        this.target = target;
    }

    /**
     * @param headerLength octets of the ULPDU before the payload, at most {@link PlacementAdvisor#HEAD_LENGTH}
     * @param target memory of exactly the payload's length (capacity), direct, one NIO buffer;
     *     ownership passes to the decoder, which releases it or hands it on inside the ULPDU
     */
    public static DirectPlacement of(int headerLength, ByteBuf target) {
        if (headerLength < 0 || headerLength > PlacementAdvisor.HEAD_LENGTH) {
            throw new IllegalArgumentException("header length " + headerLength);
        }
        return new DirectPlacement(headerLength, Objects.requireNonNull(target, "target"));
    }

    public int headerLength() {
        return headerLength;
    }

    public ByteBuf target() {
        return target;
    }
}
