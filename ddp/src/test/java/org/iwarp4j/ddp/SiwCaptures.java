package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;
import org.iwarp4j.testkit.TcpSegment;
import org.iwarp4j.testkit.TestData;

/**
 * The DDP segments Linux siw sent in a capture of {@code testdata/captures} (recorded by
 * {@code scripts/record-captures.sh}, see its README): one direction of one TCP
 * connection replayed, TCP segment by TCP segment, through our MPA Responder (for the client's
 * bytes) or Initiator (for the server's), each ULPDU then decoded by {@link DdpSegment#decode}.
 */
final class SiwCaptures {

    /** One decoded segment, copied out so no buffer outlives the call. */
    record Decoded(DdpHeader header, byte[] payload, int segmentLength) {
    }

    private SiwCaptures() {
    }

    static List<TcpConnection> connections(String file) throws Exception {
        return PcapReader.read(TestData.capture(file)).connections();
    }

    /** Every DDP segment one side of connection {@code index} sent, in order. */
    static List<Decoded> segments(String file, int index, boolean fromClient) throws Exception {
        TcpConnection connection = connections(file).get(index);
        TcpDirection direction = fromClient ? connection.clientToServer() : connection.serverToClient();
        MpaSettings settings = MpaSettings.builder().crc(NegotiationMode.ACCEPT).build();
        EmbeddedChannel channel = new EmbeddedChannel(fromClient
                ? MpaStartupHandler.responder(settings, ConnectRequestHandler.ACCEPT_ALL)
                : MpaStartupHandler.initiator(settings));
        channel.releaseOutbound();
        for (TcpSegment segment : direction.segments()) {
            channel.writeInbound(Bufs.buf(segment.payload()));
        }
        channel.releaseOutbound();
        List<Decoded> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            ByteBuf ulpdu = (ByteBuf) o;
            try {
                DdpSegment s = DdpSegment.decode(ulpdu);
                try {
                    out.add(new Decoded(s.header(), Bufs.peek(s.payload()), s.segmentLength()));
                } finally {
                    s.release();
                }
            } finally {
                ulpdu.release();
            }
        }
        channel.checkException();
        channel.finishAndReleaseAll();
        return out;
    }
}
