package org.iwarp4j.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.mpa.MpaStartupEvent;
import org.iwarp4j.mpa.NegotiatedParameters;

/**
 * One end of the demo: on Full Operation it writes its ULPDUs (a pattern that depends on the
 * sender, the ULPDU's number and the octet's position) and checks every ULPDU it receives
 * against the peer's pattern.
 */
final class DemoPeer extends ChannelInboundHandlerAdapter {

    static final int INITIATOR = 0;
    static final int RESPONDER = 1;

    private final int role;
    private final int count;
    private final int requestedSize;
    private final CompletableFuture<Boolean> finished = new CompletableFuture<>();
    private volatile NegotiatedParameters parameters;
    private volatile int size;
    private volatile String problem = "none";
    private int received;

    DemoPeer(int role, int count, int size) {
        this.role = role;
        this.count = count;
        this.requestedSize = size;
    }

    /** The octets of ULPDU number {@code ulpdu} from {@code sender}. */
    static byte[] pattern(int sender, int ulpdu, int size) {
        byte[] octets = new byte[size];
        for (int j = 0; j < size; j++) {
            octets[j] = (byte) (sender * 101 + ulpdu * 31 + j * 7);
        }
        return octets;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaStartupEvent) {
            MpaStartupEvent startup = (MpaStartupEvent) evt;
            if (!startup.isSuccess()) {
                fail("MPA startup failed: " + startup.cause());
                return;
            }
            parameters = startup.parameters();
            size = requestedSize == 0 ? parameters.sendMulpdu() : requestedSize;
            for (int i = 0; i < count; i++) {
                ctx.write(ctx.alloc().buffer(size).writeBytes(pattern(role, i, size)));
            }
            ctx.flush();
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf ulpdu = (ByteBuf) msg;
        try {
            int sender = 1 - role;
            int expectedSize = requestedSize == 0 ? ulpdu.readableBytes() : requestedSize;
            if (ulpdu.readableBytes() != expectedSize) {
                fail("ULPDU " + received + " has " + ulpdu.readableBytes() + " octets, expected " + expectedSize);
                return;
            }
            int differsAt = Arrays.mismatch(ByteBufUtil.getBytes(ulpdu), pattern(sender, received, expectedSize));
            if (differsAt >= 0) {
                fail("ULPDU " + received + " differs at octet " + differsAt);
                return;
            }
            if (++received == count) {
                finished.complete(true);
            }
        } finally {
            ulpdu.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause.toString());
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (received < count) {
            fail("connection closed after " + received + " of " + count + " ULPDUs");
        }
    }

    private void fail(String why) {
        problem = why;
        finished.complete(false);
    }

    CompletableFuture<Boolean> finished() {
        return finished;
    }

    NegotiatedParameters parameters() {
        return parameters;
    }

    int count() {
        return count;
    }

    int ulpduSize() {
        return size;
    }

    String problem() {
        return problem;
    }
}
