package org.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Set;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.TaggedBuffer;

/**
 * A protection domain (RFC 5040 §2.1, ibv_pd): memory regions and queue pairs of one domain may
 * reach each other; a peer can only place into or read from regions of the domain of the queue
 * pair it is connected to (RFC 5041 §7.1, DDP error 0x1/0x02 otherwise).
 */
public final class ProtectionDomain {

    private final Rnic rnic;
    private final int id;

    ProtectionDomain(Rnic rnic, int id) {
        this.rnic = rnic;
        this.id = id;
    }

    public int id() {
        return id;
    }

    Rnic rnic() {
        return rnic;
    }

    /**
     * Registers {@code memory}'s readable octets for every queue pair of this domain; the RNIC
     * chooses the base tagged offset. Such a region is shared by all the domain's connections, so
     * no peer may invalidate it with Send with Invalidate (RFC 5040 §5.3, §8.1.1 item 7: the peer
     * gets a Terminate, "STag cannot be invalidated"), whatever its access rights: a region without
     * remote access still has its STag sent to the peer when it is the Data Sink of an RDMA Read.
     * For memory that one connection uses, and that its peer may invalidate, use {@link
     * QueuePair#register}.
     *
     * @throws IllegalArgumentException if {@code memory} is read-only and {@code access} lets data
     *         be placed into it ({@link Access#LOCAL_WRITE}, {@link Access#REMOTE_WRITE})
     */
    public MemoryRegion register(ByteBuf memory, Set<Access> access) {
        return register(memory, access, rnic.nextBaseTaggedOffset(memory.readableBytes()));
    }

    /** Registers {@code memory}'s readable octets at base tagged offset {@code baseTaggedOffset}. */
    public MemoryRegion register(ByteBuf memory, Set<Access> access, long baseTaggedOffset) {
        return register(memory, access, baseTaggedOffset, TaggedBuffer.ANY_STREAM, null);
    }

    /** A region bound to {@code queuePair}'s stream; see {@link QueuePair#register}. */
    MemoryRegion register(ByteBuf memory, Set<Access> access, long streamId, QueuePair queuePair) {
        return register(memory, access, rnic.nextBaseTaggedOffset(memory.readableBytes()), streamId, queuePair);
    }

    private MemoryRegion register(ByteBuf memory, Set<Access> access, long baseTaggedOffset, long streamId,
                                  QueuePair queuePair) {
        if (memory.isReadOnly() && (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE))) {
            // Placement copies by address where it can, and a read-only view still has one: the
            // write would land in memory the owner made read-only (a mapped file: a crash).
            throw new IllegalArgumentException("read-only memory cannot be registered with " + access
                    + ": placement writes into a region with LOCAL_WRITE or REMOTE_WRITE");
        }
        ByteBuf region = memory.slice();
        MemoryRegion registered = new MemoryRegion(this, rnic.stagTable().register(id, streamId, baseTaggedOffset,
                region.readableBytes(), access, region), queuePair);
        rnic.memoryRegionRegistered();
        return registered;
    }

    /** Registers a ByteBuffer (direct or heap) from its position to its limit, without copying it. */
    public MemoryRegion register(ByteBuffer memory, Set<Access> access) {
        return register(Unpooled.wrappedBuffer(memory), access);
    }

    @Override
    public String toString() {
        return "ProtectionDomain{" + id + '}';
    }
}
