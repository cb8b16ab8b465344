package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.locks.StampedLock;
import org.iwarp4j.mpa.PlacementGuard;

/**
 * A buffer registered in a {@link StagTable}: the Tagged Buffer of RFC 5041 §2.3 and §5.1.1,
 * answering to Tagged Offsets {@code [baseTo, baseTo + length)} under its {@link #stag()}.
 *
 * <p>Its octets are {@code memory} at absolute indexes {@code [0, length)}; a TO maps to index
 * {@code TO - baseTo}. The memory {@link ByteBuf} is not owned by the table: the registering code
 * keeps it alive until {@link StagTable#deregister} has returned, and only then releases it.
 * Releasing it earlier is a use-after-free: an unpooled buffer makes placements fail with
 * {@link DdpError#LOCAL_CATASTROPHIC}, but a pooled buffer may already have been recycled for
 * someone else, whose octets a placement would then overwrite (Netty cannot tell).
 * Placement never moves the memory's reader or writer index.
 *
 * <p>The memory must also stay where it is: registration records the address (or array) and the
 * capacity of the buffer at the root of {@code memory} ({@link #memoryAsRegistered()}), and once the
 * owner resizes or reallocates it ({@code capacity(n)}, or a write that grows it) every access
 * through the table fails {@link DdpError#LOCAL_CATASTROPHIC} and the placement guard refuses, so
 * nothing is written past its new end or into memory that is no longer the registered memory.
 *
 * <p>Instances are created by {@link StagTable#register}; all getters are thread-safe.
 */
public final class TaggedBuffer {

    /** The stream id of a buffer usable by every stream of its protection domain. */
    public static final long ANY_STREAM = 0;

    private final int stag;
    private final int protectionDomain;
    private final long streamId;
    private final long baseTo;
    private final int length;
    private final Set<Access> access;
    private final ByteBuf memory;
    private final RootMemory root;
    /** Read-held by a placement while it checks and copies; write-held to invalidate. */
    final StampedLock lock = new StampedLock();
    private volatile boolean valid = true;
    /**
     * Octets from index 0 that the peer's tagged placements have filled ({@link #placedPrefix()}).
     * Written by placements (any event loop; a compare-and-set, so it only grows), read by the ULP
     * on any thread.
     */
    @SuppressWarnings("unused") // through PLACED_PREFIX
    private volatile long placedPrefix;
    private static final VarHandle PLACED_PREFIX;

    static {
        try {
            PLACED_PREFIX = MethodHandles.lookup().findVarHandle(TaggedBuffer.class, "placedPrefix", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The read lock, for placements made outside the table's checked accesses. */
    private final PlacementGuard placementGuard = new PlacementGuard() {
        @Override
        public boolean enter() {
            long stamp = lock.readLock();
            if (valid && root.unchanged()) {
                return true;
            }
            lock.unlockRead(stamp);
            return false;
        }

        @Override
        public void exit() {
            lock.tryUnlockRead(); // a read lock's stamp is not needed to release it, on any thread
        }
    };

    TaggedBuffer(int stag, int protectionDomain, long streamId, long baseTo, int length, Set<Access> access,
                 ByteBuf memory) {
        this.stag = stag;
        this.protectionDomain = protectionDomain;
        this.streamId = streamId;
        this.baseTo = baseTo;
        this.length = length;
        this.access = access.isEmpty() ? Collections.emptySet() : Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.memory = memory;
        this.root = new RootMemory(memory);
    }

    /** The Steering Tag: 24-bit index in bits 31..8, 8-bit key in bits 7..0. */
    public int stag() {
        return stag;
    }

    /** The protection domain the buffer belongs to (RFC 5041 §8.2, PD association). */
    public int protectionDomain() {
        return protectionDomain;
    }

    /** The only stream that may use the buffer (§8.2, stream association), or {@link #ANY_STREAM}. */
    public long streamId() {
        return streamId;
    }

    /** The Tagged Offset of the first octet (for a peer such as siw: a virtual address). */
    public long baseTo() {
        return baseTo;
    }

    /** Octets in the buffer. */
    public int length() {
        return length;
    }

    /** The access rights, unmodifiable. */
    public Set<Access> access() {
        return access;
    }

    /** The registered memory; not owned by the table. */
    public ByteBuf memory() {
        return memory;
    }

    /**
     * Whether the memory is still the memory that was registered: the buffer at the root of {@link
     * #memory()} (the one its slices and wrappers derive from) is not released and has the capacity
     * and the memory address, or backing array, it had at registration. {@code false} once its owner
     * resized or reallocated it ({@code ByteBuf.capacity(n)}, or a write that grew it): {@link
     * #memory()}, a slice that keeps its capacity while its octets follow the root, could then reach
     * past the root's new end. {@link StagTable}'s accesses and {@link #placementGuard()} refuse
     * such memory; local users of the buffer (a Send's or Read's local segments) must ask.
     */
    public boolean memoryAsRegistered() {
        return root.unchanged();
    }

    /**
     * The guard of a placement into this buffer that does not go through {@link StagTable} (MPA's
     * direct placement, whose socket read writes the memory, and a Send's placement into a receive
     * posted in this buffer, {@link ScatterEntry}): entered, it holds the buffer's read
     * lock, so that {@link StagTable#invalidate} and {@link StagTable#deregister} wait for it as for
     * the table's own placements (§8.3.1 #6); it refuses once the buffer is invalid, or its memory
     * is no longer {@linkplain #memoryAsRegistered() as registered}.
     */
    public PlacementGuard placementGuard() {
        return placementGuard;
    }

    /**
     * The length of the contiguous prefix of this buffer, from index 0, that tagged placements by
     * the peer (RDMA Writes and Read Responses placed through {@link StagTable#place}, copied or
     * placed directly) have filled. A placement extends it only if it starts exactly where the
     * prefix ends; one past it (a gap) or overlapping it leaves it as it is, even once the gap is
     * filled later. Octets the local side writes into the memory never count. Every octet below
     * it was placed by the peer at least once since registration.
     *
     * <p>It exists because an RDMA Write has no completion at its data sink (RFC 5040 §5.1: a
     * valid Write is not delivered to the ULP there; RFC 5041's tagged model places data with no
     * notice to the sink's ULP): without it nothing tells a ULP which octets a peer actually wrote.
     */
    public long placedPrefix() {
        return placedPrefix;
    }

    /**
     * Counts a placement of {@code length} octets at index {@code index} (called after it was
     * placed, under the read lock): extends the prefix if it starts where the prefix ends.
     */
    void placed(int index, int length) {
        long prefix = (long) PLACED_PREFIX.getVolatile(this);
        while (index == prefix) {
            long witness = (long) PLACED_PREFIX.compareAndExchange(this, prefix, prefix + length);
            if (witness == prefix) {
                return;
            }
            prefix = witness; // another stream's placement moved it: extend only if still contiguous
        }
    }

    /** {@code false} once invalidated or deregistered; never valid again under this STag. */
    public boolean isValid() {
        return valid;
    }

    /** Marks the buffer invalid; the caller holds the write lock. */
    void invalidate() {
        valid = false;
    }

    @Override
    public String toString() {
        return String.format("TaggedBuffer[STag=0x%08x, PD=%d, stream=%d, TO 0x%x + %d, %s%s]", stag,
                protectionDomain, streamId, baseTo, length, access, valid ? "" : ", invalid");
    }
}
