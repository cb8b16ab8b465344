package org.iwarp4j.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import java.util.Objects;

/**
 * The receive buffer allocator of one connection, through which {@link MpaFrameDecoder} reads an
 * FPDU's payload straight into its place: while the decoder is placing, the buffer of the next
 * socket read is a slice of the target memory of exactly the octets still missing, so the kernel
 * copies them where they belong and nothing copies them again (siw does the same with {@code
 * skb_copy_bits} into the target pages). Right after such a payload, if the socket had run dry
 * while it was read (this end is ahead of the sender), the next read asks only for the FPDU's
 * trailer and the next FPDU's header, so that a run of large FPDUs arriving one by one is placed
 * one after the other; with a backlog in the socket the next read is an ordinary one, which takes
 * many FPDUs in one system call. At all other times the buffer is {@code delegate}'s.
 *
 * <p>One instance per channel (its state is that channel's): set it on the channel, e.g. {@code
 * ch.config().setRecvByteBufAllocator(new PlacementRecvByteBufAllocator(...))}. It works with
 * transports that allocate a read's buffer when the socket has data, right before the read, and
 * hand it on right after: NIO, epoll, and Netty 4.2's io_uring stream channel without a provided
 * buffer ring (it polls first, allocates when the poll fires or the last receive left data in the
 * socket, and submits the receive before its event loop runs any task). A transport that posts
 * buffers to wait for data, or reads into provided buffers (an io_uring buffer ring), gains
 * nothing from it: a read that does not land in place is copied there by the decoder.
 *
 * <p>A read into the memory runs under the placement's {@link PlacementGuard}, entered when the
 * read's buffer is allocated and exited when the read returned ({@link Handle#lastBytesRead(int)},
 * else at the latest when the read loop completes or the decoder sees the buffer): an invalidation
 * of the memory that returns has no read into it still running, and none starts after it. That
 * holds only where the read follows the allocation within one call of the transport, with nothing
 * else run on the event loop in between: NIO and epoll. Netty's io_uring channel completes a
 * receive on a later turn of its event loop, after other tasks (an invalidation among them would
 * wait for itself), so for it the allocator is built with {@code readsInPlace} false: the
 * decoder places what ordinary reads bring, copying under the guard.
 */
public final class PlacementRecvByteBufAllocator implements RecvByteBufAllocator {

    private final RecvByteBufAllocator delegate;
    private final boolean inPlace;
    /** Where the next read goes while placing: target memory, its index and octets; null otherwise. */
    private ByteBuf target;
    private PlacementGuard guard;
    /** The guard entered for the read into the target that has not returned yet, or null. */
    private PlacementGuard held;
    private int index;
    private int length;
    /** The last slice handed to a read: the decoder recognises a read that landed in place by identity. */
    private ByteBuf handedOut;
    /** If positive, the next read (not in place) asks for at most this many octets. */
    private int nextReadLimit;
    private long readsInPlace;

    /** @param delegate sizes and supplies every other read's buffer; its handle must be an {@link ExtendedHandle} */
    public PlacementRecvByteBufAllocator(RecvByteBufAllocator delegate) {
        this(delegate, true);
    }

    /**
     * @param delegate sizes and supplies every other read's buffer; its handle must be an {@link ExtendedHandle}
     * @param readsInPlace whether reads go into the target memory: only for a transport that reads
     *     right after it allocates, within the same call (NIO, epoll); else every read is an
     *     ordinary one and the decoder copies it into place
     */
    public PlacementRecvByteBufAllocator(RecvByteBufAllocator delegate, boolean readsInPlace) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.inPlace = readsInPlace;
    }

    @Override
    public Handle newHandle() {
        return new PlacingHandle((ExtendedHandle) delegate.newHandle());
    }

    /** Reads go to {@code target}'s octets {@code [index, index + length)} until {@link #stopPlacing()}. */
    void placeInto(ByteBuf target, PlacementGuard guard, int index, int length) {
        this.nextReadLimit = 0;
        this.target = inPlace ? target : null;
        this.guard = guard;
        this.index = index;
        this.length = length;
    }

    void stopPlacing() {
        target = null;
        handedOut = null;
        readReturned();
    }

    /** The read into the target returned (or none is running): its guard is exited. */
    private void readReturned() {
        PlacementGuard g = held;
        if (g != null) {
            held = null;
            g.exit();
        }
    }

    /**
     * The next read asks for at most {@code octets}: after a placed payload, just its trailer and
     * the next FPDU's header, so that a large next FPDU is not swallowed by an ordinary read before
     * the decoder could direct its payload.
     */
    void limitNextRead(int octets) {
        nextReadLimit = octets;
    }

    /** Whether {@code buf} is the buffer a read into the target memory was given. */
    boolean isInPlace(ByteBuf buf) {
        readReturned(); // a transport calls lastBytesRead first; a test's simulated read may not
        if (buf != handedOut) {
            return false;
        }
        readsInPlace++;
        return true;
    }

    /** Reads whose octets reached the decoder already in target memory, for tests. */
    public long readsInPlace() {
        return readsInPlace;
    }

    private final class PlacingHandle implements ExtendedHandle {
        private final ExtendedHandle delegate;

        PlacingHandle(ExtendedHandle delegate) {
            this.delegate = delegate;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            readReturned();
            if (target != null && guard.enter()) {
                // Held until the read returned (lastBytesRead): an invalidation waits for it, and
                // the check of validity is made under the hold, so none can slip in between.
                held = guard;
                try {
                    // A fresh slice each time: a read that got nothing releases its buffer unread.
                    handedOut = target.retainedSlice(index, length).writerIndex(0);
                } catch (RuntimeException e) {
                    readReturned();
                    throw e;
                }
                return handedOut;
            }
            int limit = nextReadLimit;
            if (limit > 0) {
                nextReadLimit = 0;
                return alloc.ioBuffer(limit, limit);
            }
            return delegate.allocate(alloc);
        }

        @Override
        public int guess() {
            return target != null ? length : nextReadLimit > 0 ? nextReadLimit : delegate.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            delegate.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            delegate.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            readReturned(); // called right after the read, whatever it got
            delegate.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return delegate.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            delegate.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return delegate.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return delegate.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return delegate.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            readReturned(); // also after a read that threw, which calls no lastBytesRead
            delegate.readComplete();
        }
    }
}
