package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import org.iwarp4j.mpa.PlacementGuard;

/**
 * One piece of a {@link ReceiveBuffer}: octets {@code [index, index + length)} of {@code buffer},
 * by absolute index. Placement writes there with {@code setBytes} and never moves the buffer's
 * reader or writer index. The buffer is not owned by DDP.
 *
 * <p>The memory may stop being a valid target while the buffer is posted (registered memory whose
 * region the ULP deregisters or invalidates): {@code guard} is entered around every placement into
 * it, by the queue's copy and by MPA's direct placement alike, and once it refuses nothing more is
 * written there (RFC 5040 §8.1.1 #6; siw checks a receive's memory again at each placement,
 * siw_check_sge). {@link PlacementGuard#ALWAYS} for memory that stays valid.
 *
 * @param buffer the memory
 * @param index the first octet
 * @param length octets, 0 or more
 * @param guard what keeps the memory a valid target while octets are written into it
 */
public record ScatterEntry(ByteBuf buffer, int index, int length, PlacementGuard guard) {

    public ScatterEntry {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(guard, "guard");
        if (index < 0 || length < 0 || index > buffer.capacity() - length) {
            throw new IllegalArgumentException("octets [" + index + ", " + index + " + " + length
                    + ") are not within the buffer's capacity " + buffer.capacity());
        }
    }

    /** A piece of memory that stays a valid target ({@link PlacementGuard#ALWAYS}). */
    public ScatterEntry(ByteBuf buffer, int index, int length) {
        this(buffer, index, length, PlacementGuard.ALWAYS);
    }
}
