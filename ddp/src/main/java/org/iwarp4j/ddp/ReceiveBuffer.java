package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.iwarp4j.mpa.PlacementGuard;

/**
 * An untagged buffer posted to an {@link UntaggedQueue} (RFC 5041 §5.1.2): a scatter list whose
 * entries, one after the other, form the buffer a DDP message is placed into, and the opaque id of
 * the work request that posted it. The ByteBufs are not owned by DDP: the poster keeps them alive
 * until the buffer comes back, delivered ({@link UntaggedMessage}) or flushed
 * ({@link UntaggedQueue#flush()}).
 */
public final class ReceiveBuffer {

    private final long workRequestId;
    private final List<ScatterEntry> scatterList;
    private final long length;

    private ReceiveBuffer(long workRequestId, List<ScatterEntry> scatterList) {
        this.workRequestId = workRequestId;
        this.scatterList = List.copyOf(scatterList);
        long total = 0;
        for (ScatterEntry e : this.scatterList) {
            total += e.length();
        }
        this.length = total;
    }

    /** One piece, already checked by {@link ScatterEntry}'s constructor: no list to copy or sum. */
    private ReceiveBuffer(long workRequestId, ScatterEntry only) {
        this.workRequestId = workRequestId;
        this.scatterList = List.of(only);
        this.length = only.length();
    }

    /** A buffer of octets {@code [0, length)} of {@code buffer}. */
    public static ReceiveBuffer of(long workRequestId, ByteBuf buffer, int length) {
        return of(workRequestId, buffer, 0, length);
    }

    /**
     * A buffer of octets {@code [index, index + length)} of {@code buffer}: the one-piece scatter
     * list most receives have, built without the general factory's list copy (a receive is
     * posted once per message received, so this is on every Send's path).
     */
    public static ReceiveBuffer of(long workRequestId, ByteBuf buffer, int index, int length) {
        return new ReceiveBuffer(workRequestId, new ScatterEntry(buffer, index, length));
    }

    /**
     * As {@link #of(long, ByteBuf, int, int)}, for memory that {@code guard} keeps a valid target
     * (see {@link ScatterEntry}).
     */
    public static ReceiveBuffer of(long workRequestId, ByteBuf buffer, int index, int length, PlacementGuard guard) {
        return new ReceiveBuffer(workRequestId, new ScatterEntry(buffer, index, length, guard));
    }

    /** A buffer made of {@code scatterList}, in order; the list may be empty (a zero-length buffer). */
    public static ReceiveBuffer of(long workRequestId, List<ScatterEntry> scatterList) {
        return new ReceiveBuffer(workRequestId, scatterList);
    }

    /** The id given when posting, returned with the completion. */
    public long workRequestId() {
        return workRequestId;
    }

    /** The pieces of the buffer, in message order; unmodifiable. */
    public List<ScatterEntry> scatterList() {
        return scatterList;
    }

    /** Octets in the whole buffer: the sum of the entries' lengths. */
    public long length() {
        return length;
    }

    /**
     * Copies {@code length} octets of {@code src} from {@code srcIndex} to buffer offset {@code
     * offset}; checked by the caller. Each piece is written under its guard, checked there: a
     * piece whose memory stopped being a valid target is not written.
     *
     * @return {@code false} if a piece's guard refused (the pieces before it were written)
     */
    boolean write(long offset, ByteBuf src, int srcIndex, int length) {
        // By index, not for-each: an iterator per placed segment (every Send's) is not always
        // optimised away (JFR's allocation samples on the receiving loop of a Send run).
        for (int i = 0; i < scatterList.size(); i++) {
            ScatterEntry e = scatterList.get(i);
            if (length == 0) {
                return true;
            }
            if (offset >= e.length()) {
                offset -= e.length();
                continue;
            }
            int n = (int) Math.min(length, e.length() - offset);
            PlacementGuard guard = e.guard();
            if (!guard.enter()) {
                return false;
            }
            try {
                MemoryPlacement.copy(src, srcIndex, e.buffer(), e.index() + (int) offset, n);
            } finally {
                guard.exit();
            }
            srcIndex += n;
            length -= n;
            offset = 0;
        }
        return true;
    }

    @Override
    public String toString() {
        return "ReceiveBuffer[wr " + workRequestId + ", " + length + " octets in " + scatterList.size() + " pieces]";
    }
}
