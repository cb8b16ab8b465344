package org.iwarp4j.rpcrdma.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.rpcrdma.internal.FailedXids.CallShape;
import org.junit.jupiter.api.Test;

/** The table behind RFC 8166 §4.5.3 (RPC-R-067): who matches an entry, for how long, how many. */
class FailedXidsTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.1", 801);
    private static final InetSocketAddress CLIENT_AGAIN = new InetSocketAddress("192.0.2.1", 802);
    private static final InetSocketAddress OTHER_HOST = new InetSocketAddress("192.0.2.2", 801);
    private static final int NFS = 100003;

    private final AtomicLong now = new AtomicLong();
    private final FailedXids table = new FailedXids(3, Duration.ofSeconds(60), now::get);

    /** An RPC call header (RFC 5531 §9) with the given credential and an AUTH_NONE verifier, then one argument word. */
    private static CallShape shape(int procedure, int credFlavor, byte[] credBody) {
        ByteBuf b = Unpooled.buffer();
        try {
            b.writeInt(0x77).writeInt(0).writeInt(2).writeInt(NFS).writeInt(3).writeInt(procedure);
            b.writeInt(credFlavor).writeInt(credBody.length).writeBytes(credBody).writeZero(-credBody.length & 3);
            b.writeInt(0).writeInt(0).writeInt(42);
            return CallShape.of(b);
        } finally {
            b.release();
        }
    }

    private static byte[] authSys(int stamp, String machine, int uid) {
        byte[] name = machine.getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = Unpooled.buffer();
        b.writeInt(stamp).writeInt(name.length).writeBytes(name).writeZero(-name.length & 3);
        b.writeInt(uid).writeInt(uid).writeInt(0);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out).release();
        return out;
    }

    /** An RPCSEC_GSS credential body (RFC 2203 §5): version 1, DATA, seq_num, integrity, a 4-octet handle. */
    private static byte[] gss(int seq, int handle) {
        ByteBuf b = Unpooled.buffer().writeInt(1).writeInt(0).writeInt(seq).writeInt(2).writeInt(4).writeInt(handle);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out).release();
        return out;
    }

    @Test
    void theSameCallFromTheSameHostOnANewPortMatchesOnce() {
        CallShape write = shape(7, 1, authSys(100, "client", 1000));
        table.add(CLIENT, 0x10, write);
        assertThat(table.takeRetransmission(CLIENT_AGAIN, 0x10, shape(7, 1, authSys(100, "client", 1000)))).isTrue();
        assertThat(table.takeRetransmission(CLIENT_AGAIN, 0x10, write)).isFalse();
        assertThat(table.size()).isZero();
    }

    @Test
    void anAuthSysStampThatMovedStillMatchesButAnotherCallerDoesNot() {
        table.add(CLIENT, 0x11, shape(7, 1, authSys(100, "client", 1000)));
        assertThat(table.takeRetransmission(CLIENT, 0x11, shape(7, 1, authSys(100, "client", 1001)))).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x11, shape(7, 1, authSys(100, "client2", 1000)))).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x11, shape(7, 1, authSys(103, "client", 1000)))).isTrue();
    }

    @Test
    void anRpcsecGssSequenceNumberIsIgnoredButNotTheContextHandle() {
        table.add(CLIENT, 0x12, shape(6, 6, gss(5, 0xAAAA)));
        assertThat(table.takeRetransmission(CLIENT, 0x12, shape(6, 6, gss(6, 0xBBBB)))).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x12, shape(6, 6, gss(6, 0xAAAA)))).isTrue();
    }

    @Test
    void aCallOfAnotherShapeOrHostIsNotFailedAndLeavesTheEntry() {
        CallShape read = shape(6, 0, new byte[0]);
        table.add(CLIENT, 0x13, read);
        assertThat(table.takeRetransmission(CLIENT, 0x13, shape(0, 0, new byte[0]))).isFalse(); // NULL
        assertThat(table.takeRetransmission(CLIENT, 0x13, shape(6, 1, authSys(0, "client", 0)))).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x13, CallShape.LONG_CALL)).isFalse();
        assertThat(table.takeRetransmission(OTHER_HOST, 0x13, read)).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x14, read)).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x13, null)).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x13, read)).isTrue();
    }

    @Test
    void anEntryExpiresAfterMaxAge() {
        CallShape read = shape(6, 0, new byte[0]);
        table.add(CLIENT, 0x20, read);
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        table.add(CLIENT, 0x21, read);
        now.addAndGet(Duration.ofSeconds(30).toNanos()); // 0x20 is 60 s old, 0x21 30 s
        assertThat(table.takeRetransmission(CLIENT, 0x20, read)).isFalse();
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.takeRetransmission(CLIENT, 0x21, read)).isTrue();
    }

    @Test
    void theOldestEntryGoesBeyondCapacity() {
        CallShape read = shape(6, 0, new byte[0]);
        for (int xid = 0x30; xid < 0x34; xid++) {
            table.add(CLIENT, xid, read);
        }
        assertThat(table.size()).isEqualTo(3);
        assertThat(table.takeRetransmission(CLIENT, 0x30, read)).isFalse();
        assertThat(table.takeRetransmission(CLIENT, 0x33, read)).isTrue();
    }

    @Test
    void whatIsNotAWellFormedCallHeaderHasNoShape() {
        ByteBuf reply = Unpooled.buffer().writeInt(0x77).writeInt(1).writeZero(40);
        ByteBuf truncatedCredential = Unpooled.buffer().writeInt(0x77).writeInt(0).writeInt(2).writeInt(NFS).writeInt(3)
                .writeInt(1).writeInt(1).writeInt(400).writeZero(16);
        try {
            assertThat(CallShape.of(reply)).isNull();
            assertThat(CallShape.of(truncatedCredential)).isNull();
            table.add(CLIENT, 0x40, null);
            assertThat(table.size()).isZero();
        } finally {
            reply.release();
            truncatedCredential.release();
        }
    }
}
