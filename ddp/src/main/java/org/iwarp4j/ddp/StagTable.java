package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Steering Tags of one RNIC: every registered {@link TaggedBuffer}, shared by all its
 * connections, and the protection checks of every tagged access (RFC 5041 §7.1, §8.2, §8.3).
 *
 * <p><b>STags.</b> 32 bits: a 24-bit table index in bits 31..8 and an 8-bit key in bits 7..0, the
 * layout Linux siw uses ({@code siw_mem_id2obj(sdev, stag >> 8)}). Index and key are drawn at
 * random (RFC 5040 §8.1.1 #8, RDMAP-R-039: hard to predict and sparse within the table's index
 * range, so that a peer cannot reach a buffer it was never told of by guessing its STag), index 0
 * is never used (so STags 0..255,
 * among them the 0 or 1 that zero-length RTR messages carry, are never valid), and when an index is reused its key differs
 * from the previous one, so an STag that was deregistered fails as {@link StagCheck#INVALID_STAG}
 * instead of reaching the new buffer (DDP-R-053, DDP-R-054).
 *
 * <p><b>Association</b> (§8.2, DDP-R-051, DDP-R-052): every buffer belongs to a protection domain
 * (an int chosen by the caller) and optionally to one stream ({@link #newStreamId()}); an access
 * from another PD, or another stream for a stream-scoped buffer, fails as
 * {@link StagCheck#NOT_ASSOCIATED}. An access the local ULP named itself, not the peer, is made
 * as {@link #LOCAL_REQUEST} and checked against the PD only.
 *
 * <p><b>Checks</b> ({@link #check}, {@link #place}, {@link #retainedSlice}), in this order: the
 * STag names a registered, valid buffer; the buffer belongs to the caller's PD and stream; it has
 * the required {@link Access}; TO + length does not wrap 2^64; {@code [TO, TO + length)} lies in
 * {@code [base, base + length)}. A zero-length access is allowed without any lookup, whatever the
 * STag and TO (RFC 5041 §5.2, DDP-R-031; RFC 6581 RTR messages rely on it: the Write RTR's STag
 * and TO are not checked, MPA2-R-013). {@link #place} and
 * {@link #retainedSlice} then make sure the memory is still as registered ({@link
 * TaggedBuffer#memoryAsRegistered()}: its owner may have resized or reallocated it), which
 * {@link #check} does not: a failure there is this end's, {@link DdpError#LOCAL_CATASTROPHIC}.
 *
 * <p><b>Threads.</b> All methods are thread-safe. Lookups are lock-free. A placement holds its
 * buffer's read lock from its checks to the end of its copy, and {@link #invalidate(int)} and
 * {@link #deregister(int)} take the write lock: when they return, no placement into the buffer is
 * running or can start (§8.3.1 #6). Registration is serialised on the table.
 */
public final class StagTable {

    /** Buffers a table holds unless told otherwise. */
    public static final int DEFAULT_CAPACITY = 1 << 16;
    /** Most buffers a table can hold: every 24-bit index but 0. */
    public static final int MAX_CAPACITY = (1 << 24) - 1;

    /**
     * The stream id for a placement whose STag and TO the local ULP named itself, not the peer:
     * RDMAP's Read Response, which lands in the Data Sink its own Read Request named and which it
     * compared with that request before placing (RFC 5040 §5.2.2, RDMAP-R-018). Such a placement is
     * checked against the protection domain only, so it reaches a buffer bound to any stream of the
     * domain, as the local ULP's own work may: the stream scope keeps other connections' peers out
     * of a buffer, and the peer here reaches nothing but the sink the ULP chose. Never to be used
     * for an access a peer named. It matches no buffer's stream when invalidating ({@link
     * #invalidate(int, int, long)}).
     */
    public static final long LOCAL_REQUEST = -1;

    private final int capacity;
    /** Slot i holds the buffer with index i; slot 0 is never used. */
    private final AtomicReferenceArray<TaggedBuffer> slots;
    private final AtomicLong streamIds = new AtomicLong();
    private final SecureRandom random = new SecureRandom();
    // Guarded by this:
    /** Indexes and keys: one SecureRandom call per 4 KiB instead of two per registration. */
    private final RandomBlock draws = new RandomBlock(random);
    private final byte[] lastKey;
    private final int[] free;
    private int freeCount;

    /** A table for {@link #DEFAULT_CAPACITY} buffers. */
    public StagTable() {
        this(DEFAULT_CAPACITY);
    }

    /** A table for {@code capacity} buffers, 1 to {@link #MAX_CAPACITY}. */
    public StagTable(int capacity) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("capacity must be 1.." + MAX_CAPACITY + ": " + capacity);
        }
        this.capacity = capacity;
        this.slots = new AtomicReferenceArray<>(capacity + 1);
        this.lastKey = new byte[capacity + 1];
        random.nextBytes(lastKey);
        this.free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = i + 1;
        }
        this.freeCount = capacity;
    }

    /** How many buffers the table can hold. */
    public int capacity() {
        return capacity;
    }

    /** How many buffers are registered now (valid or invalidated, not yet deregistered). */
    public synchronized int size() {
        return capacity - freeCount;
    }

    /** A stream id never returned before by this table (positive), for stream-scoped buffers. */
    public long newStreamId() {
        return streamIds.incrementAndGet();
    }

    /**
     * Registers a buffer usable by every stream of {@code protectionDomain}.
     *
     * @see #register(int, long, long, int, Set, ByteBuf)
     */
    public TaggedBuffer register(int protectionDomain, long baseTo, int length, Set<Access> access, ByteBuf memory) {
        return register(protectionDomain, TaggedBuffer.ANY_STREAM, baseTo, length, access, memory);
    }

    /**
     * Registers {@code memory}'s octets {@code [0, length)} under a new STag, answering to Tagged
     * Offsets {@code [baseTo, baseTo + length)} (RFC 5041 §8.3 #1-#3).
     *
     * @param protectionDomain the PD whose streams may use the buffer
     * @param streamId the only stream that may use it, or {@link TaggedBuffer#ANY_STREAM}
     * @param baseTo the TO of octet 0, an unsigned 64-bit value; {@code baseTo + length} must not
     *     pass 2^64 - 1
     * @param length octets, at most {@code memory.capacity()}
     * @param access the rights, possibly none
     * @param memory the octets; not owned by the table, not retained, must outlive the registration
     * @throws IllegalStateException if the table is full
     */
    public TaggedBuffer register(int protectionDomain, long streamId, long baseTo, int length, Set<Access> access,
                                 ByteBuf memory) {
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(memory, "memory");
        if (length < 0 || length > memory.capacity()) {
            throw new IllegalArgumentException("length " + length + " is not within the memory's capacity "
                    + memory.capacity());
        }
        if (Long.compareUnsigned(baseTo + length, baseTo) < 0) {
            throw new IllegalArgumentException(String.format(
                    "a buffer of %d octets at TO 0x%x would pass 2^64 - 1", length, baseTo));
        }
        synchronized (this) {
            if (freeCount == 0) {
                throw new IllegalStateException("STag table full: " + capacity + " buffers registered");
            }
            int pick = draws.nextInt(freeCount);
            int index = free[pick];
            free[pick] = free[--freeCount];
            int key = (lastKey[index] + 1 + draws.nextInt(255)) & 0xFF;
            lastKey[index] = (byte) key;
            TaggedBuffer buffer = new TaggedBuffer(index << 8 | key, protectionDomain, streamId, baseTo, length,
                    access, memory);
            slots.set(index, buffer);
            return buffer;
        }
    }

    /**
     * Removes the buffer: it is invalid from now on and its STag is never valid again (DDP-R-053).
     * Waits for a placement into it that is running. Returns {@code false} if the STag was not
     * registered (an unknown or stale STag, or one already deregistered).
     */
    public boolean deregister(int stag) {
        TaggedBuffer buffer = lookupAny(stag);
        if (buffer == null) {
            return false;
        }
        invalidateLocked(buffer);
        synchronized (this) {
            int index = stag >>> 8;
            if (slots.get(index) != buffer) {
                return false;
            }
            slots.set(index, null);
            free[freeCount++] = index;
            return true;
        }
    }

    /**
     * Invalidates the buffer locally (the ULP revokes the STag, §8.3 #2): every later access fails as
     * {@link StagCheck#INVALID_STAG}; the registration stays until {@link #deregister}. Waits for a
     * placement into it that is running. Returns {@code false} if the STag was not valid.
     */
    public boolean invalidate(int stag) {
        TaggedBuffer buffer = lookupAny(stag);
        return buffer != null && invalidateLocked(buffer);
    }

    /**
     * Invalidates the buffer on behalf of a stream, as an RDMAP Send with Invalidate asks
     * (RFC 5040 §5.3, RDMAP-R-023): only a valid STag bound to the caller's stream (registered with
     * that stream id) and PD can be invalidated.
     *
     * <p>A buffer registered for {@link TaggedBuffer#ANY_STREAM} is never invalidated this way,
     * whatever its access rights: it serves every stream of its PD, so it is not associated with
     * the caller's stream alone (§5.3), and a remote peer could otherwise revoke memory that
     * another connection is using (§8.1.1 item 7, RDMAP-R-047). That a buffer has no remote access
     * does not keep it private: an RDMA Read names its Data Sink's STag to the peer, so a ULP that
     * takes every connection's Read sinks from one such buffer would let any one peer revoke it for
     * all.
     *
     * @return {@link StagCheck#VALID} if it was invalidated now, {@link StagCheck#INVALID_STAG} if
     *     it was not registered or not valid, {@link StagCheck#NOT_ASSOCIATED} if it belongs to
     *     another PD or stream, or to every stream of its PD (then it stays valid)
     */
    public StagCheck invalidate(int stag, int protectionDomain, long streamId) {
        TaggedBuffer buffer = lookupAny(stag);
        if (buffer == null || !buffer.isValid()) {
            return StagCheck.INVALID_STAG;
        }
        if (buffer.protectionDomain() != protectionDomain || buffer.streamId() == TaggedBuffer.ANY_STREAM
                || buffer.streamId() != streamId) {
            return StagCheck.NOT_ASSOCIATED;
        }
        return invalidateLocked(buffer) ? StagCheck.VALID : StagCheck.INVALID_STAG;
    }

    /**
     * The buffer registered under exactly this STag (index and key), valid or invalidated, or
     * {@code null} once deregistered: a Local Invalidate of an STag already invalid (the peer's
     * Send with Invalidate or an earlier invalidate came first) still names it.
     */
    public TaggedBuffer lookupRegistered(int stag) {
        return lookupAny(stag);
    }

    /** The valid buffer registered under exactly this STag (index and key), or {@code null}. */
    public TaggedBuffer lookup(int stag) {
        TaggedBuffer buffer = lookupAny(stag);
        return buffer != null && buffer.isValid() ? buffer : null;
    }

    /**
     * Validates a tagged access of {@code length} octets at {@code to} without performing it (the
     * checks listed in the class comment). A zero length is {@link StagCheck#VALID} at once.
     *
     * @param length octets, 0 to 2^32 - 1 (an RDMA Read may ask for that many)
     */
    public StagCheck check(int stag, int protectionDomain, long streamId, Access required, long to, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        if (length == 0) {
            return StagCheck.VALID;
        }
        return checkBuffer(lookupAny(stag), protectionDomain, streamId, required, to, length);
    }

    /**
     * Places {@code payload}'s readable octets at {@code to} in the buffer named by {@code stag}: one
     * copy, after every check has passed, under the buffer's read lock. On failure nothing is
     * written (§7.1: "cease placing the remainder"; no octet outside the buffer is ever touched,
     * §8.3.1 #3). {@code payload} keeps its indexes and reference count. A zero-length payload is
     * accepted without any lookup (DDP-R-031).
     *
     * @throws DdpException with the §7.2 number and {@link DdpException#stagCheck()}; no segment is
     *     attached (see {@link #place(DdpSegment, int, long, Access)}). A buffer whose memory was
     *     released, resized or reallocated since registration ({@link TaggedBuffer#memoryAsRegistered()})
     *     gives {@link DdpError#LOCAL_CATASTROPHIC}, without a {@link StagCheck}: the segment passed
     *     every §7.1 check, and nothing is written.
     */
    public void place(int stag, int protectionDomain, long streamId, Access required, long to, ByteBuf payload)
            throws DdpException {
        int length = payload.readableBytes();
        if (length == 0) {
            return;
        }
        withCheckedBuffer(stag, protectionDomain, streamId, required, to, length, (buffer, index) -> {
            MemoryPlacement.copy(payload, payload.readerIndex(), buffer.memory(), index, length);
            // After the copy (or the direct placement the copy recognises as done), never before:
            // only octets actually in place count (TaggedBuffer#placedPrefix).
            buffer.placed(index, length);
            return null;
        });
    }

    /**
     * Places a received tagged segment's payload at its header's STag and TO (RFC 5041 §7.1), for
     * a stream in {@code protectionDomain} / {@code streamId} that needs {@code required}: an RDMA
     * Write needs {@link Access#REMOTE_WRITE}; a Read Response is placed into the requester's own
     * buffer, which Linux siw checks for {@link Access#LOCAL_WRITE}. Errors carry the segment's
     * header octets and length for the Terminate (DDP-R-049).
     *
     * @throws ClassCastException if the segment is untagged
     */
    public void place(DdpSegment segment, int protectionDomain, long streamId, Access required) throws DdpException {
        TaggedHeader header = segment.taggedHeader();
        try {
            place(header.stag(), protectionDomain, streamId, required, header.to(), segment.payload());
        } catch (DdpException e) {
            throw e.withSegment(segment);
        }
    }

    /**
     * A retained slice of the octets {@code [to, to + length)} of a buffer, after the same checks as
     * a placement: the zero-copy source of an RDMA Read Response (RFC 5040 §5.2.2, with
     * {@link Access#REMOTE_READ}). The caller releases the slice; it keeps the registered memory
     * alive, but not the registration: data read after the STag is invalidated is whatever the
     * memory then holds. A zero length gives an empty buffer without any lookup.
     *
     * @throws DdpException as {@link #place}; RDMAP maps {@link DdpException#stagCheck()} to its
     *     own Read Request codes
     */
    public ByteBuf retainedSlice(int stag, int protectionDomain, long streamId, Access required, long to,
                                 long length) throws DdpException {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        if (length == 0) {
            return Unpooled.EMPTY_BUFFER;
        }
        return withCheckedBuffer(stag, protectionDomain, streamId, required, to, length,
                (buffer, index) -> buffer.memory().retainedSlice(index, (int) length));
    }

    /** What a checked access does with the buffer, at the octet index of the access's TO. */
    @FunctionalInterface
    private interface CheckedAccess<T> {
        T apply(TaggedBuffer buffer, int index);
    }

    /**
     * The protocol every tagged access follows: look the STag up, hold the buffer's read lock
     * through the checks and the access (so an invalidate or deregister that returns has no
     * access still running into the memory), and report any failure as the DDP error it is.
     */
    private <T> T withCheckedBuffer(int stag, int protectionDomain, long streamId, Access required, long to,
                                    long length, CheckedAccess<T> access) throws DdpException {
        TaggedBuffer buffer = lookupAny(stag);
        if (buffer == null) {
            throw failure(StagCheck.INVALID_STAG, stag, to, length, null);
        }
        long stamp = buffer.lock.readLock();
        try {
            StagCheck result = checkBuffer(buffer, protectionDomain, streamId, required, to, length);
            if (result != StagCheck.VALID) {
                throw failure(result, stag, to, length, buffer);
            }
            if (!buffer.memoryAsRegistered()) {
                // The range check above was against the registration; the memory under it has
                // since been released, resized or moved (a slice keeps its capacity and follows its
                // buffer's new memory): the access could reach past the memory's end.
                throw new DdpException(DdpError.LOCAL_CATASTROPHIC, String.format("the memory of STag 0x%08x was"
                        + " released, resized or reallocated after its registration", stag));
            }
            try {
                return access.apply(buffer, (int) (to - buffer.baseTo()));
            } catch (IndexOutOfBoundsException | IllegalReferenceCountException e) {
                DdpException failure = new DdpException(DdpError.LOCAL_CATASTROPHIC, String.format(
                        "the memory of STag 0x%08x is no longer usable: %s", stag, e.getMessage()));
                failure.initCause(e);
                throw failure;
            }
        } finally {
            buffer.lock.unlockRead(stamp);
        }
    }

    private TaggedBuffer lookupAny(int stag) {
        int index = stag >>> 8;
        if (index == 0 || index > capacity) {
            return null;
        }
        TaggedBuffer buffer = slots.get(index);
        return buffer != null && buffer.stag() == stag ? buffer : null;
    }

    private static boolean invalidateLocked(TaggedBuffer buffer) {
        long stamp = buffer.lock.writeLock();
        try {
            boolean wasValid = buffer.isValid();
            buffer.invalidate();
            return wasValid;
        } finally {
            buffer.lock.unlockWrite(stamp);
        }
    }

    private static boolean associated(TaggedBuffer buffer, int protectionDomain, long streamId) {
        return buffer.protectionDomain() == protectionDomain && (buffer.streamId() == TaggedBuffer.ANY_STREAM
                || buffer.streamId() == streamId || streamId == LOCAL_REQUEST);
    }

    /** RFC 5041 §7.1 tagged checks 1-5 for a non-zero length. */
    private static StagCheck checkBuffer(TaggedBuffer buffer, int protectionDomain, long streamId, Access required,
                                         long to, long length) {
        if (buffer == null || !buffer.isValid()) {
            return StagCheck.INVALID_STAG;
        }
        if (!associated(buffer, protectionDomain, streamId)) {
            return StagCheck.NOT_ASSOCIATED;
        }
        if (!buffer.access().contains(required)) {
            return StagCheck.ACCESS_DENIED;
        }
        if (Long.compareUnsigned(to + length, to) < 0) {
            return StagCheck.TO_WRAP;
        }
        if (Long.compareUnsigned(to, buffer.baseTo()) < 0) {
            return StagCheck.BASE_OR_BOUNDS;
        }
        long offset = to - buffer.baseTo();
        if (Long.compareUnsigned(offset, buffer.length()) > 0 || length > buffer.length() - offset) {
            return StagCheck.BASE_OR_BOUNDS;
        }
        return StagCheck.VALID;
    }

    private static DdpException failure(StagCheck check, int stag, long to, long length, TaggedBuffer buffer) {
        String what = String.format("tagged access of %d octets at STag 0x%08x TO 0x%x", length, stag, to);
        String why = switch (check) {
            case INVALID_STAG -> "no valid buffer is registered under the STag";
            case NOT_ASSOCIATED -> "the buffer belongs to PD " + buffer.protectionDomain()
                    + (buffer.streamId() == TaggedBuffer.ANY_STREAM ? "" : " / stream " + buffer.streamId());
            case ACCESS_DENIED -> "the buffer allows only " + buffer.access();
            case TO_WRAP -> "TO + length wraps 2^64";
            case BASE_OR_BOUNDS -> String.format("outside the buffer's TO range [0x%x, 0x%x)", buffer.baseTo(),
                    buffer.baseTo() + buffer.length());
            case VALID -> throw new IllegalArgumentException("not a failure");
        };
        return new DdpException(check.ddpError(), what + ": " + why, check, null, -1);
    }
}
