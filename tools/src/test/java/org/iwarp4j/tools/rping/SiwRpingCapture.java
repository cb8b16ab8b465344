package org.iwarp4j.tools.rping;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.mpa.MpaDecision;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;
import org.iwarp4j.testkit.TcpSegment;
import org.iwarp4j.testkit.TestData;

/**
 * One of the rping captures of Linux siw in {@code testdata/captures} ({@code rping -s -a 10.0.2.15 -p 7174}
 * / {@code rping -c -a 10.0.2.15 -p 7174 -C 10 -v}, recorded by {@code scripts/record-captures.sh}),
 * read back as rping's two peers sent it: each side's MPA startup frame, and each side's ULPDUs
 * (DDP segment with RDMAP header), which the iwarp4j MPA decoder recovers from the captured TCP
 * segments. The DDP offsets below are RFC 5041 §4.2/§4.3 and RFC 5040 §4.4.
 */
final class SiwRpingCapture {

    /** Octet 0 of a ULPDU: DDP control; octet 1: RDMAP control (RFC 5040 §4.1). */
    static final int RDMAP_CONTROL = 1;
    /** Tagged header: STag at 2, tagged offset at 6, payload at 14. */
    static final int TAGGED_STAG = 2;
    static final int TAGGED_TO = 6;
    static final int TAGGED_PAYLOAD = 14;
    /** Untagged header: QN at 6, MSN at 10, MO at 14, payload at 18. */
    static final int UNTAGGED_MSN = 10;
    static final int UNTAGGED_PAYLOAD = 18;
    /** Read Request header after the untagged header (RFC 5040 §4.4): sink STag/TO, size, source STag/TO. */
    static final int READ_SINK_STAG = 18;
    static final int READ_SINK_TO = 22;
    static final int READ_SIZE = 30;
    static final int READ_SOURCE_STAG = 34;
    static final int READ_SOURCE_TO = 38;

    static final int OPCODE_WRITE = 0x0;
    static final int OPCODE_READ_REQUEST = 0x1;
    static final int OPCODE_READ_RESPONSE = 0x2;
    static final int OPCODE_SEND = 0x3;

    final String file;
    final byte[] requestFrame;
    final byte[] replyFrame;
    final List<byte[]> fromClient;
    final List<byte[]> fromServer;

    private SiwRpingCapture(String file, byte[] requestFrame, byte[] replyFrame, List<byte[]> fromClient,
                            List<byte[]> fromServer) {
        this.file = file;
        this.requestFrame = requestFrame;
        this.replyFrame = replyFrame;
        this.fromClient = fromClient;
        this.fromServer = fromServer;
    }

    static SiwRpingCapture load(String file) throws Exception {
        TcpConnection c = PcapReader.read(TestData.capture(file)).onlyConnection();
        return new SiwRpingCapture(file, startupFrame(c.clientToServer()), startupFrame(c.serverToClient()),
                ulpdus(c.clientToServer(), true), ulpdus(c.serverToClient(), false));
    }

    /** The Request or Reply frame: 16-octet key, flags, revision, PD_Length, private data (RFC 5044 §7.1). */
    private static byte[] startupFrame(TcpDirection direction) {
        byte[] stream = direction.stream();
        int pdLength = (stream[18] & 0xFF) << 8 | stream[19] & 0xFF;
        return Arrays.copyOf(stream, 20 + pdLength);
    }

    private static List<byte[]> ulpdus(TcpDirection direction, boolean fromClient) {
        MpaSettings settings = MpaSettings.builder().crc(NegotiationMode.ACCEPT).ird(1).ord(1).build();
        MpaStartupHandler handler = fromClient
                ? MpaStartupHandler.responder(settings, r -> CompletableFuture.completedFuture(MpaDecision.accept()))
                : MpaStartupHandler.initiator(settings);
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        channel.releaseOutbound();
        for (TcpSegment s : direction.segments()) {
            channel.writeInbound(Unpooled.wrappedBuffer(s.payload()));
        }
        channel.checkException();
        List<byte[]> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            ByteBuf ulpdu = (ByteBuf) o;
            out.add(ByteBufUtil.getBytes(ulpdu));
            ulpdu.release();
        }
        channel.releaseOutbound();
        assertThat(handler.startup()).isCompleted();
        assertThat(channel.finish()).isFalse();
        return out;
    }

    /** The frame's C flag (RFC 5044 §7.1: flags octet 16, C = 0x40). */
    boolean crc() {
        return (requestFrame[16] & 0x40) != 0;
    }

    static int opcode(byte[] ulpdu) {
        return ulpdu[RDMAP_CONTROL] & 0x0F;
    }

    static byte[] payload(byte[] ulpdu) {
        boolean tagged = (ulpdu[0] & 0x80) != 0;
        return Arrays.copyOfRange(ulpdu, tagged ? TAGGED_PAYLOAD : UNTAGGED_PAYLOAD, ulpdu.length);
    }

    static int int32(byte[] b, int at) {
        return Unpooled.wrappedBuffer(b).getInt(at);
    }

    static long int64(byte[] b, int at) {
        return Unpooled.wrappedBuffer(b).getLong(at);
    }

    /** A copy of {@code ulpdu} with a 4-octet STag and an 8-octet TO written at {@code stagAt} / {@code toAt}. */
    static byte[] withStagAndTo(byte[] ulpdu, int stagAt, int stag, int toAt, long to) {
        byte[] copy = ulpdu.clone();
        ByteBuf b = Unpooled.wrappedBuffer(copy);
        b.setInt(stagAt, stag);
        b.setLong(toAt, to);
        return copy;
    }

    @Override
    public String toString() {
        return file;
    }
}
