package org.iwarp4j.oncrpc.sample;

import io.netty.buffer.ByteBuf;
import org.iwarp4j.oncrpc.RpcClient;

import java.util.concurrent.CompletableFuture;

/**
 * Client stub of {@link EchoProgram}, over any transport the {@link RpcClient} has.
 * Buffers passed in are consumed; buffers returned belong to the caller, who releases them.
 */
public final class EchoClient {

    private final RpcClient client;
    private final int maxData;

    public EchoClient(RpcClient client) {
        this(client, EchoProgram.DEFAULT_MAX_DATA);
    }

    /** @param maxData largest opaque accepted in a reply */
    public EchoClient(RpcClient client, int maxData) {
        this.client = client;
        this.maxData = maxData;
    }

    /** NULL: a round trip with no data. */
    public CompletableFuture<Void> nullCall() {
        return client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL, args -> { },
                results -> null);
    }

    /** ECHO: sends {@code data} (consumed) and completes with the octets the server sent back. */
    public CompletableFuture<ByteBuf> echo(ByteBuf data) {
        return client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_ECHO,
                args -> args.writeOpaque(data, maxData), results -> results.readOpaqueBuf(maxData));
    }

    /** SINK: sends {@code data} (consumed; DDP-eligible) and completes with its length and CRC32c. */
    public CompletableFuture<SinkResult> sink(ByteBuf data) {
        return client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_SINK,
                args -> args.writeDdpEligibleOpaque(data, maxData), EchoProgram::decodeSink);
    }

    /** SOURCE: asks for {@code count} octets of the pattern; the result is DDP-eligible. */
    public CompletableFuture<ByteBuf> source(int count) {
        return client.call(EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_SOURCE,
                args -> args.writeUnsignedInt(Integer.toUnsignedLong(count)),
                results -> results.readDdpEligibleOpaque(maxData));
    }
}
