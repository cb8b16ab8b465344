package org.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import java.util.Optional;
import java.util.Set;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.TaggedBuffer;

/**
 * Registered memory (RFC 5040 §2.1 "Tagged Buffer"): the region's STag, which a peer names to
 * reach it, and the tagged offsets it answers to: [{@link #baseTaggedOffset()}, base + length).
 * The memory is the caller's {@link ByteBuf}; the registration neither copies nor releases it —
 * keep it alive, and unchanged by others, while work requests use it.
 *
 * <p>Keep it where it is, too: the region is the memory as registered. Once its buffer is resized or
 * reallocated ({@code capacity(n)}, or a write past its capacity that grows it) the region refuses
 * every use, as RNICs refuse memory that is no longer pinned: the peer's RDMA Write or Read Response
 * into it ends the connection with a Terminate DDP Local Catastrophic (0x1/0x0/0x00), its RDMA Read
 * Request of it with RDMAP Local Catastrophic (0x0/0x0/0x00), nothing placed or sent (the error is
 * this end's, RFC 5041 §7.2, RFC 5040 §7.1 #1; {@link QueuePair#failureCause()} says which region);
 * a local work request posted with it after the resize, a receive included, completes {@link
 * WorkCompletionStatus#LOCAL_PROTECTION_ERROR} and the queue pair goes on. A receive posted
 * before the resize is refused only when the peer's Send arrives for it: as for the peer's Write,
 * the queue pair fails with DDP Local Catastrophic. Register the buffer again after resizing it.
 */
public final class MemoryRegion implements AutoCloseable {

    private final ProtectionDomain protectionDomain;
    private final TaggedBuffer buffer;
    private final QueuePair queuePair;

    MemoryRegion(ProtectionDomain protectionDomain, TaggedBuffer buffer, QueuePair queuePair) {
        this.protectionDomain = protectionDomain;
        this.buffer = buffer;
        this.queuePair = queuePair;
    }

    /** The Steering Tag: the rkey to give a peer for RDMA Write/Read, and the lkey of local work. */
    public int stag() {
        return buffer.stag();
    }

    /** The tagged offset of the region's first octet (a virtual address, as Linux siw expects). */
    public long baseTaggedOffset() {
        return buffer.baseTo();
    }

    public int length() {
        return buffer.length();
    }

    public Set<Access> access() {
        return buffer.access();
    }

    public ProtectionDomain protectionDomain() {
        return protectionDomain;
    }

    /**
     * The queue pair whose peer alone may reach this region ({@link QueuePair#register}), or empty
     * for a region that serves every queue pair of its protection domain.
     */
    public Optional<QueuePair> queuePair() {
        return Optional.ofNullable(queuePair);
    }

    /**
     * How many octets from the region's start (tagged offset {@link #baseTaggedOffset()}) the
     * peer's RDMA Writes (and Read Responses) have filled, in order: a placement counts only if it
     * starts exactly where those before it ended, so an out-of-order or overlapping one, and
     * whatever follows a gap, does not extend it. Writes of the local side into {@link #memory()}
     * never count. Every octet below it was placed by the peer.
     *
     * <p>An RDMA Write has no completion at its data sink (RFC 5040 §5.1; RFC 5041 places tagged
     * data without telling the sink's ULP), so a ULP told by its peer that some octets were
     * written has only this to check the claim against. Thread-safe; what the peer placed before
     * a later message on the same connection is seen by whoever handles that message.
     */
    public long peerPlacedPrefix() {
        return buffer.placedPrefix();
    }

    /** Still registered and not invalidated. */
    public boolean isValid() {
        return buffer.isValid();
    }

    /** The registered memory, as given at registration (not a copy). */
    public ByteBuf memory() {
        return buffer.memory();
    }

    /**
     * {@code length} octets from {@code offset} of this region, for a work request. Whether they
     * lie within the region is checked when the work request is carried out.
     *
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative, or {@code
     *         offset + length} passes 2^31 - 1 ({@link ScatterGatherElement})
     */
    public ScatterGatherElement sge(long offset, int length) {
        return new ScatterGatherElement(this, offset, length);
    }

    /** The whole region as one scatter/gather element. */
    public ScatterGatherElement sge() {
        return new ScatterGatherElement(this, 0, length());
    }

    /** Deregisters: the STag stops working at once, locally and for the peer. */
    @Override
    public void close() {
        if (protectionDomain.rnic().stagTable().deregister(buffer.stag())) {
            protectionDomain.rnic().memoryRegionDeregistered();
        }
    }

    @Override
    public String toString() {
        return String.format("MemoryRegion{STag %08x, TO %x, %d octets, %s%s}", stag(), baseTaggedOffset(), length(),
                access(), queuePair == null ? "" : ", QP " + queuePair.number());
    }
}
