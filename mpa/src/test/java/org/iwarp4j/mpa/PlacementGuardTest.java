package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.StampedLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read into placed memory runs under the placement's {@link PlacementGuard}: an invalidation of
 * the memory on another thread (here a guard with the locking protocol of DDP's TaggedBuffer, a
 * read lock per placement and the write lock to invalidate) that starts between the allocation of
 * the read's buffer and the read does not return before the read did, and the reads after it get
 * ordinary buffers, so no octet lands in the memory once the invalidation returned (StagTable's
 * rule, RFC 5040 §8.1.1 #6). The copy path (a read that did not land in place) is guarded the
 * same way.
 */
class PlacementGuardTest {

    private static final int HEADER = 14;
    private static final int PAYLOAD = 40000;
    private static final int FIRST = 10000;
    private static final byte UNTOUCHED = (byte) 0xEE;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final PlacementRecvByteBufAllocator reads =
            new PlacementRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(64, 1024, 65536));
    private final ByteBuf region = ByteBufAllocator.DEFAULT.directBuffer(PAYLOAD);
    private final LockGuard guard = new LockGuard();

    /** TaggedBuffer's protocol: enter = read lock if valid, invalidate = write lock. */
    private static final class LockGuard implements PlacementGuard {
        final StampedLock lock = new StampedLock();
        volatile boolean valid = true;
        /** Runs at each exit, before the hold ends. */
        volatile Runnable onExit = () -> { };

        @Override
        public boolean enter() {
            long stamp = lock.readLock();
            if (valid) {
                return true;
            }
            lock.unlockRead(stamp);
            return false;
        }

        @Override
        public void exit() {
            onExit.run();
            lock.tryUnlockRead();
        }

        void invalidate() {
            long stamp = lock.writeLock();
            valid = false;
            lock.unlockWrite(stamp);
        }
    }

    PlacementGuardTest() {
        region.writerIndex(PAYLOAD);
        for (int i = 0; i < PAYLOAD; i++) {
            region.setByte(i, UNTOUCHED);
        }
        channel.config().setRecvByteBufAllocator(reads);
        MpaFrameDecoder decoder = new MpaFrameDecoder(false, true, 0xFFFF);
        decoder.placementAdvisor((head, length) -> DirectPlacement.of(HEADER, region.retainedSlice(0, length - HEADER),
                guard), 1024);
        channel.pipeline().addLast(decoder);
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
        region.release();
    }

    @Test
    void anInvalidationThatStartsBetweenAllocationAndReadWaitsForTheRead() throws Exception {
        byte[] payload = new byte[PAYLOAD];
        new Random(7).nextBytes(payload);
        byte[] stream = fpdu(payload);
        // An ordinary read brings the head and the payload's first octets: placement starts.
        channel.writeInbound(Unpooled.wrappedBuffer(stream, 0, 2 + HEADER + FIRST));
        RecvByteBufAllocator.Handle handle = channel.unsafe().recvBufAllocHandle();
        ByteBuf read = handle.allocate(ByteBufAllocator.DEFAULT);
        assertThat(isRegion(read)).as("the read's buffer is the region").isTrue();

        AtomicBoolean readReturned = new AtomicBoolean();
        AtomicBoolean sawReadReturned = new AtomicBoolean();
        AtomicBoolean invalidated = new AtomicBoolean();
        Thread invalidator = new Thread(() -> {
            guard.invalidate();
            sawReadReturned.set(readReturned.get());
            invalidated.set(true);
        }, "invalidator");
        invalidator.start();
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (invalidator.getState() != Thread.State.WAITING && invalidator.isAlive()) {
            assertThat(System.nanoTime()).as("invalidator blocked in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(invalidated.get()).as("the invalidation did not return while the read may run").isFalse();

        // The "kernel" read: 12000 octets into the region, then the transport's lastBytesRead.
        int n = 12000;
        read.writeBytes(stream, 2 + HEADER + FIRST, n);
        readReturned.set(true);
        handle.lastBytesRead(n);
        invalidator.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
        assertThat(invalidated.get()).as("the invalidation returned once the read had").isTrue();
        assertThat(sawReadReturned.get()).as("and not before").isTrue();
        channel.writeInbound(read);

        // After the invalidation: the next read is an ordinary buffer and nothing more is placed.
        ByteBuf next = handle.allocate(ByteBufAllocator.DEFAULT);
        assertThat(isRegion(next)).as("a read after the invalidation").isFalse();
        next.writeBytes(stream, 2 + HEADER + FIRST + n, stream.length - (2 + HEADER + FIRST + n));
        handle.lastBytesRead(next.readableBytes());
        channel.writeInbound(next);
        assertThat(Arrays.copyOfRange(bytes(region), 0, FIRST + n))
                .isEqualTo(Arrays.copyOfRange(payload, 0, FIRST + n));
        for (int i = FIRST + n; i < PAYLOAD; i++) {
            assertThat(region.getByte(i)).as("octet %d, after the invalidation", i).isEqualTo(UNTOUCHED);
        }
    }

    @Test
    void aCopyIntoTheMemoryRunsUnderTheGuardToo() {
        // The advisor's memory, copied into by the decoder from ordinary reads (not in place):
        // each copy enters the guard, and once it refuses nothing more is copied.
        byte[] payload = new byte[PAYLOAD];
        new Random(8).nextBytes(payload);
        byte[] stream = fpdu(payload);
        channel.writeInbound(Unpooled.wrappedBuffer(stream, 0, 2 + HEADER + FIRST));
        assertThat(guard.lock.isReadLocked()).as("no hold between reads").isFalse();
        int last = FIRST + 4999;
        AtomicBoolean copiedWhileHeld = new AtomicBoolean();
        guard.onExit = () -> copiedWhileHeld.set(region.getByte(last) == payload[last]);
        channel.writeInbound(Unpooled.wrappedBuffer(stream, 2 + HEADER + FIRST, 5000));
        assertThat(copiedWhileHeld.get()).as("the read's octets were copied before the hold ended").isTrue();
        assertThat(guard.lock.isReadLocked()).as("the copy's hold ended with it").isFalse();
        guard.invalidate();
        channel.writeInbound(Unpooled.wrappedBuffer(stream, 2 + HEADER + FIRST + 5000,
                stream.length - (2 + HEADER + FIRST + 5000)));
        assertThat(Arrays.copyOfRange(bytes(region), 0, FIRST + 5000))
                .isEqualTo(Arrays.copyOfRange(payload, 0, FIRST + 5000));
        for (int i = FIRST + 5000; i < PAYLOAD; i++) {
            assertThat(region.getByte(i)).as("octet %d, after the invalidation", i).isEqualTo(UNTOUCHED);
        }
    }

    private boolean isRegion(ByteBuf buf) {
        return buf.hasMemoryAddress() && buf.memoryAddress() >= region.memoryAddress()
                && buf.memoryAddress() < region.memoryAddress() + region.capacity();
    }

    private static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.capacity()];
        buf.getBytes(0, b);
        return b;
    }

    /** One FPDU (CRC on) of a test ULPDU: a 14-octet header, then {@code payload}. */
    private static byte[] fpdu(byte[] payload) {
        byte[] ulpdu = new byte[HEADER + payload.length];
        Arrays.fill(ulpdu, 0, HEADER, (byte) 0x5A);
        System.arraycopy(payload, 0, ulpdu, HEADER, payload.length);
        EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
        encoder.writeOutbound(Wire.buf(ulpdu));
        byte[] stream = Wire.outbound(encoder);
        encoder.finishAndReleaseAll();
        return stream;
    }
}
