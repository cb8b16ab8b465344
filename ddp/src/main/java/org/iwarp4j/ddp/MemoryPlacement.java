package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;

/**
 * The one copy of DDP placement: segment payload into registered memory.
 *
 * <p>Registered memory is shared: connections on different event loops may place into disjoint
 * parts of one buffer at the same time. Netty's {@code setBytes(int, ByteBuf, int, int)} on a
 * direct buffer goes through the buffer's cached internal NIO view, whose position and limit are
 * not safe for concurrent use, so concurrent placements corrupt each other. This copies by
 * memory address where the target has one and the source is direct (a composite source piece by
 * piece, through fresh views of its pieces), else through a fresh view of the target.
 *
 * <p>Copying by address needs {@code sun.misc.Unsafe}, which Netty uses only where the JDK allows it
 * ({@link PlatformDependent#hasUnsafe()}; from Java 24 Netty leaves it off by default, see
 * {@code io.netty.noUnsafe}). Netty's direct buffers can have an address without it (on Java 25
 * they are memory segments), so the address is not enough: without {@code Unsafe} every copy goes
 * through fresh NIO views, which are as safe for concurrent placement.
 *
 * <p>When the payload is already where it belongs (MPA's direct placement had the socket read it
 * into the registered memory, see {@code MpaFrameDecoder}), source and target are the same octets
 * and the copy is skipped: all checks before it ran as for any segment, only the copy is saved.
 */
final class MemoryPlacement {

    /** Whether copies may go by memory address: only through {@code Unsafe}, whatever {@code hasMemoryAddress()} says. */
    static final boolean BY_ADDRESS = PlatformDependent.hasUnsafe();

    private MemoryPlacement() {
    }

    /** Copies {@code length} octets from {@code src} at {@code srcIndex} into {@code dst} at {@code dstIndex}. */
    static void copy(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (length == 0) {
            return;
        }
        if (BY_ADDRESS && src.hasMemoryAddress() && dst.hasMemoryAddress() && src.refCnt() > 0 && dst.refCnt() > 0) {
            // Both are direct memory at known addresses (a read buffer, or a slice of it, into
            // registered memory): copy by address, with no NIO view to build per segment. The
            // ranges are checked here because nothing below checks them; against each buffer's own
            // capacity, which for a slice of registered memory is not its buffer's once that was
            // resized: the registration's memory check (TaggedBuffer.memoryAsRegistered) covers that.
            checkRange(src, srcIndex, length);
            checkRange(dst, dstIndex, length);
            long from = src.memoryAddress() + srcIndex;
            long to = dst.memoryAddress() + dstIndex;
            if (from != to) {
                PlatformDependent.copyMemory(from, to, length);
            }
            return;
        }
        if (BY_ADDRESS && src.isDirect() && dst.hasMemoryAddress() && dst.refCnt() > 0) {
            copyPieces(src, srcIndex, dst, dstIndex, length);
            return;
        }
        if (samePlace(src, srcIndex, dst, dstIndex, length)) {
            return;
        }
        if (dst.hasArray()) {
            src.getBytes(srcIndex, dst.array(), dst.arrayOffset() + dstIndex, length);
        } else if (dst.nioBufferCount() == 1) {
            ByteBuffer target = dst.nioBuffer(dstIndex, length);
            src.getBytes(srcIndex, target);
        } else {
            // A composite registered buffer: no single view to write through; not safe for
            // concurrent placement into the same components (documented on StagTable.register).
            dst.setBytes(dstIndex, src, srcIndex, length);
        }
    }

    /**
     * A direct source without one address (a slice of a composite: the FPDU a read cut, or a
     * directly placed payload behind its header) into memory with an address: piece by piece by
     * address, from one list of the source's pieces. A piece that already is the target's memory
     * is not copied. Looking the pieces up once, rather than once to compare and again through the
     * composite to copy, and writing without a fresh view of the target, saves that work per
     * segment (the receive path hands over such a slice for every FPDU a read cuts).
     */
    private static void copyPieces(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        checkRange(dst, dstIndex, length);
        ByteBuffer[] pieces = src.nioBuffers(srcIndex, length);
        long to = dst.memoryAddress() + dstIndex;
        for (ByteBuffer piece : pieces) {
            int n = piece.remaining();
            long from = PlatformDependent.directBufferAddress(piece) + piece.position();
            if (from != to) {
                PlatformDependent.copyMemory(from, to, n);
            }
            to += n;
        }
    }

    private static void checkRange(ByteBuf buf, int index, int length) {
        if (index < 0 || length < 0 || index > buf.capacity() - length) {
            throw new IndexOutOfBoundsException(
                    "octets " + index + ".." + ((long) index + length) + " of a buffer of " + buf.capacity());
        }
    }

    /**
     * Whether {@code src}'s octets are {@code dst}'s very octets (direct memory at one address).
     * Only direct memory can have been placed in advance; heap and composite targets never are.
     * Always false where no address is known ({@link BufferAddress#KNOWN}): then nothing is placed
     * in advance either ({@link DdpReceiver#recognisesDirectlyPlacedPayloads()}).
     */
    static boolean samePlace(ByteBuf src, int srcIndex, ByteBuf dst, int dstIndex, int length) {
        if (!BufferAddress.KNOWN || !src.isDirect() || !dst.isDirect() || dst.nioBufferCount() != 1) {
            return false;
        }
        // nioBuffers, not nioBuffer: a range of a composite within one component is that component's
        // memory, where nioBuffer would merge (copy) a composite.
        ByteBuffer[] from = src.nioBuffers(srcIndex, length);
        if (from.length != 1 || !from[0].isDirect()) {
            return false;
        }
        ByteBuffer to = dst.nioBuffer(dstIndex, length);
        return to.isDirect() && BufferAddress.of(from[0]) == BufferAddress.of(to);
    }
}
