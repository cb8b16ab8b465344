package org.iwarp4j.oncrpc.sample;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.RpcGarbageArgsException;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.XdrDecoder;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The iwarp4j echo program, a program number from the user-defined range (RFC 5531 §7.3):
 * <pre>
 * struct sink_res { unsigned int length; unsigned int crc32c; };
 * program IWARP4J_ECHO {
 *     version ECHO_V1 {
 *         void     NULL(void)                  = 0;
 *         opaque   ECHO(opaque data&lt;&gt;)&lt;&gt;      = 1;  /&#42; the same octets back &#42;/
 *         sink_res SINK(opaque data&lt;&gt;)         = 2;  /&#42; data is DDP-eligible &#42;/
 *         opaque   SOURCE(unsigned int count)&lt;&gt; = 3;  /&#42; result is DDP-eligible &#42;/
 *     } = 1;
 * } = 0x20495701;
 * </pre>
 * DDP-eligibility (RFC 8166 §3.4.2, this program's Upper-Layer Binding): the {@code data}
 * argument of SINK, which an RPC-over-RDMA requester may send in a Read chunk, and the result
 * of SOURCE, which a responder may return in a Write chunk. The reply to SOURCE holds at most
 * {@code count} data octets plus 28 octets of reply header and length word; SOURCE's octets are
 * {@link #sourceByte(long)}. Opaque data is limited to {@code maxData} octets (a larger count
 * or argument is GARBAGE_ARGS).
 */
public final class EchoProgram {

    /** Program number, "IW" in the user-defined range. */
    public static final int PROGRAM = 0x2049_5701;
    public static final int VERSION = 1;
    public static final int PROC_NULL = 0;
    public static final int PROC_ECHO = 1;
    public static final int PROC_SINK = 2;
    public static final int PROC_SOURCE = 3;
    /** Default largest opaque accepted or produced: 16 MiB. */
    public static final int DEFAULT_MAX_DATA = 16 << 20;

    private static final int PATTERN_LENGTH = 1 << 16;
    private static final byte[] PATTERN = new byte[PATTERN_LENGTH];
    private static final ByteBuf PATTERN_BUF;

    static {
        new SplittableRandom(0x1_5757_4135L).nextBytes(PATTERN);
        PATTERN_BUF = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(PATTERN).asReadOnly());
    }

    private EchoProgram() {
    }

    /** The program with {@link #DEFAULT_MAX_DATA}. */
    public static RpcProgram create() {
        return create(DEFAULT_MAX_DATA);
    }

    /** The program, refusing opaque data longer than {@code maxData}. */
    public static RpcProgram create(int maxData) {
        return RpcProgram.builder(PROGRAM, VERSION)
                .procedure(PROC_ECHO, RpcProcedure.of((ctx, args, results) ->
                        results.writeOpaque(args.readOpaqueBuf(maxData), maxData)))
                .procedure(PROC_SINK, RpcProcedure.of((ctx, args, results) -> {
                    ByteBuf data = args.readDdpEligibleOpaque(maxData);
                    try {
                        results.writeUnsignedInt(data.readableBytes()).writeInt(crc32c(data));
                    } finally {
                        data.release();
                    }
                }))
                .procedure(PROC_SOURCE, RpcProcedure.of((ctx, args, results) -> {
                    long count = args.readUnsignedInt();
                    if (count > maxData) {
                        throw new RpcGarbageArgsException("SOURCE count " + count + " exceeds " + maxData);
                    }
                    results.writeDdpEligibleOpaque(source((int) count, ctx.transport().alloc()), maxData);
                }))
                .build();
    }

    /** Octet {@code index} of every SOURCE result (a fixed pseudo-random pattern of period 65536). */
    public static byte sourceByte(long index) {
        return PATTERN[(int) (index & (PATTERN_LENGTH - 1))];
    }

    /** {@code count} octets of the SOURCE pattern, without copying (read-only slices of one block). */
    public static ByteBuf source(int count, ByteBufAllocator alloc) {
        if (count <= PATTERN_LENGTH) {
            return PATTERN_BUF.slice(0, count);
        }
        CompositeByteBuf data = alloc.compositeBuffer(count / PATTERN_LENGTH + 1);
        for (int offset = 0; offset < count; offset += PATTERN_LENGTH) {
            data.addComponent(true, PATTERN_BUF.slice(0, Math.min(PATTERN_LENGTH, count - offset)));
        }
        return data;
    }

    /** Whether {@code data} is exactly the first {@code data.readableBytes()} octets of the SOURCE pattern. */
    public static boolean isSource(ByteBuf data) {
        int n = data.readableBytes();
        int base = data.readerIndex();
        byte[] block = new byte[Math.min(n, PATTERN_LENGTH)];
        for (int offset = 0; offset < n; offset += PATTERN_LENGTH) {
            int len = Math.min(PATTERN_LENGTH, n - offset);
            data.getBytes(base + offset, block, 0, len); // bulk reads: one bounds check per block
            if (!Arrays.equals(block, 0, len, PATTERN, 0, len)) {
                return false;
            }
        }
        return true;
    }

    /** CRC32c of the readable octets of {@code data}, as SINK reports it. */
    public static int crc32c(ByteBuf data) {
        CRC32C crc = new CRC32C();
        for (ByteBuffer b : data.nioBuffers()) {
            crc.update(b);
        }
        return (int) crc.getValue();
    }

    static SinkResult decodeSink(XdrDecoder in) {
        return new SinkResult(in.readUnsignedInt(), in.readInt());
    }
}
