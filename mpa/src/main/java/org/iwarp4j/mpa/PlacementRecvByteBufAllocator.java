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
 */
public final class PlacementRecvByteBufAllocator implements RecvByteBufAllocator {

    private final RecvByteBufAllocator delegate;
    /** Where the next read goes while placing: target memory, its index and octets; null otherwise. */
    private ByteBuf target;
    private java.util.function.BooleanSupplier valid;
    private int index;
    private int length;
    /** The last slice handed to a read: the decoder recognises a read that landed in place by identity. */
    private ByteBuf handedOut;
    /** If positive, the next read (not in place) asks for at most this many octets. */
    private int nextReadLimit;
    private long readsInPlace;

    /** @param delegate sizes and supplies every other read's buffer; its handle must be an {@link ExtendedHandle} */
    public PlacementRecvByteBufAllocator(RecvByteBufAllocator delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public Handle newHandle() {
        return new PlacingHandle((ExtendedHandle) delegate.newHandle());
    }

    /** Reads go to {@code target}'s octets {@code [index, index + length)} until {@link #stopPlacing()}. */
    void placeInto(ByteBuf target, java.util.function.BooleanSupplier valid, int index, int length) {
        this.nextReadLimit = 0;
        this.target = target;
        this.valid = valid;
        this.index = index;
        this.length = length;
    }

    void stopPlacing() {
        target = null;
        handedOut = null;
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
            if (target != null && valid.getAsBoolean()) {
                // A fresh slice each time: a read that got nothing releases its buffer unread.
                handedOut = target.retainedSlice(index, length).writerIndex(0);
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
            delegate.readComplete();
        }
    }
}
