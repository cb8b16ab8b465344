package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * One piece of a {@link ReceiveBuffer}: octets {@code [index, index + length)} of {@code buffer},
 * by absolute index. Placement writes there with {@code setBytes} and never moves the buffer's
 * reader or writer index. The buffer is not owned by DDP.
 *
 * @param buffer the memory
 * @param index the first octet
 * @param length octets, 0 or more
 */
public record ScatterEntry(ByteBuf buffer, int index, int length) {

    public ScatterEntry {
        Objects.requireNonNull(buffer, "buffer");
        if (index < 0 || length < 0 || index > buffer.capacity() - length) {
            throw new IllegalArgumentException("octets [" + index + ", " + index + " + " + length
                    + ") are not within the buffer's capacity " + buffer.capacity());
        }
    }
}
