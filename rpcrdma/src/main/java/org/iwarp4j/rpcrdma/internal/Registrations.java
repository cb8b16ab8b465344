package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.MemoryRegion;

/**
 * The memory one RPC exposes to the peer: its registered regions and the buffers this end
 * allocated for them. A Requester registers just before the Call and fences everything before the
 * RPC completes (RFC 8166 §4.4.1, §8.1.3): each region is invalidated, locally unless the
 * Responder's Send with Invalidate already did it, then deregistered. Not thread-safe: one RPC's
 * registrations are handled by one thread at a time.
 */
final class Registrations {

    private final RdmaEndpoint endpoint;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final List<ByteBuf> owned = new ArrayList<>();
    private boolean released;

    Registrations(RdmaEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** Registers {@code memory} (kept alive by its owner until {@link #release}). */
    MemoryRegion register(ByteBuf memory, Set<Access> access) {
        MemoryRegion r = endpoint.register(memory, access);
        regions.add(r);
        return r;
    }

    /** Registers a buffer this end allocated; it is released with the registrations. */
    MemoryRegion registerOwned(ByteBuf memory, Set<Access> access) {
        owned.add(memory);
        return register(memory, access);
    }

    /** Keeps {@code buffer} until {@link #release}. */
    void own(ByteBuf buffer) {
        owned.add(buffer);
    }

    List<MemoryRegion> regions() {
        return regions;
    }

    boolean isEmpty() {
        return regions.isEmpty();
    }

    /** The handle a Responder may invalidate with Send with Invalidate: the first registered (CMPD-R-008). */
    OptionalInt firstStag() {
        return regions.isEmpty() ? OptionalInt.empty() : OptionalInt.of(regions.get(0).stag());
    }

    /**
     * Invalidates every region the peer could still reach (all but {@code remotelyInvalidated}) and
     * completes when the invalidations have; fails if one could not be done (the caller then closes
     * the connection, RFC 8166 §4.5.4).
     */
    CompletableFuture<Void> fence(OptionalInt remotelyInvalidated) {
        List<CompletableFuture<Void>> all = null;
        CompletableFuture<Void> only = null;
        for (int i = 0; i < regions.size(); i++) {
            MemoryRegion r = regions.get(i);
            if (r.isValid() && !(remotelyInvalidated.isPresent() && remotelyInvalidated.getAsInt() == r.stag())) {
                CompletableFuture<Void> invalidated = endpoint.invalidate(r.stag());
                if (only == null) {
                    only = invalidated;
                } else {
                    if (all == null) {
                        all = new ArrayList<>();
                        all.add(only);
                    }
                    all.add(invalidated);
                }
            }
        }
        // Nothing left to invalidate (a 1 MiB NFS WRITE whose Reply invalidated its Read chunk) or
        // one region: no allOf tree; a failure still fails the fence.
        if (only == null) {
            return CompletableFuture.completedFuture(null);
        }
        return all == null ? only : CompletableFuture.allOf(all.toArray(new CompletableFuture[0]));
    }

    /** Deregisters every region and releases the buffers this end allocated. Idempotent. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        for (MemoryRegion r : regions) {
            r.close();
        }
        for (ByteBuf b : owned) {
            ReferenceCountUtil.safeRelease(b);
        }
    }
}
