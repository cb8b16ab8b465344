package org.iwarp4j.ddp;

import io.netty.util.internal.PlatformDependent;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * The memory address of a direct {@link ByteBuffer}'s position, so that two views can be told to
 * be the same octets (a payload MPA's direct placement already read into its target).
 *
 * <p>Netty reads it through {@code sun.misc.Unsafe}, which it leaves off by default from Java 24 on
 * ({@code io.netty.noUnsafe}). Java 22 made {@code java.lang.foreign.MemorySegment} final, whose
 * {@code ofBuffer(buffer).address()} gives the same number without {@code Unsafe} and without a
 * restricted method; it is looked up by name because this code is compiled for Java 17. On Java 17
 * to 21 without {@code Unsafe} no address is known and every payload is copied.
 */
final class BufferAddress {

    /** {@code MemorySegment.ofBuffer(Buffer)} then {@code address()}, as {@code (Buffer)long}; null if absent. */
    private static final MethodHandle SEGMENT_ADDRESS = segmentAddress();

    /** Whether {@link #of(ByteBuffer)} can answer in this JVM. */
    static final boolean KNOWN = PlatformDependent.hasUnsafe() || SEGMENT_ADDRESS != null;

    private BufferAddress() {
    }

    /** The address of {@code direct}'s position; only when {@link #KNOWN}. */
    static long of(ByteBuffer direct) {
        if (PlatformDependent.hasUnsafe()) {
            return PlatformDependent.directBufferAddress(direct) + direct.position();
        }
        try {
            return (long) SEGMENT_ADDRESS.invokeExact((Buffer) direct);
        } catch (Throwable e) {
            throw new IllegalStateException("no address for a direct buffer", e);
        }
    }

    private static MethodHandle segmentAddress() {
        if (Runtime.version().feature() < 22) {
            return null; // a preview API before 22
        }
        try {
            Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle ofBuffer = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class));
            MethodHandle address = lookup.findVirtual(segment, "address", MethodType.methodType(long.class));
            return MethodHandles.filterReturnValue(ofBuffer, address);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
