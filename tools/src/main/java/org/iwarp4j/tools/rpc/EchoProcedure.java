package org.iwarp4j.tools.rpc;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;

/**
 * The echo program's data procedures as benchmarked, each with the check of its reply: ECHO
 * (the octets back), SINK (to the server: length and CRC32c), SOURCE (from the server: the
 * program's pattern). Over RPC-over-RDMA SINK's data is a Read chunk and SOURCE's a Write chunk
 * ({@code EchoBinding}); a large ECHO is a Long Call and a Long Reply.
 */
public enum EchoProcedure {
    ECHO("data both ways", "ECHO octets"),
    SINK("data to the server", "SINK length and CRC32c"),
    SOURCE("data from the server", "SOURCE pattern");

    private final String direction;
    private final String verified;

    EchoProcedure(String direction, String verified) {
        this.direction = direction;
        this.verified = verified;
    }

    public String direction() {
        return direction;
    }

    /** What {@link #call} checks in each reply, as the report's footer names it. */
    public String verified() {
        return verified;
    }

    /**
     * One call with {@code payload} (the SOURCE pattern, {@code size} octets; not consumed) whose
     * CRC32c is {@code payloadCrc}; completes with whether the reply verified. The reply's buffers
     * are released here.
     */
    public CompletableFuture<Boolean> call(EchoClient echo, ByteBuf payload, int payloadCrc) {
        int size = payload.readableBytes();
        return switch (this) {
            case ECHO -> echo.echo(payload.retainedDuplicate()).thenApply(back -> isPattern(back, size));
            case SINK -> echo.sink(payload.retainedDuplicate())
                    .thenApply(r -> r.length() == size && r.crc32c() == payloadCrc);
            case SOURCE -> echo.source(size).thenApply(data -> isPattern(data, size));
        };
    }

    private static boolean isPattern(ByteBuf data, int size) {
        try {
            return data.readableBytes() == size && EchoProgram.isSource(data);
        } finally {
            data.release();
        }
    }
}
