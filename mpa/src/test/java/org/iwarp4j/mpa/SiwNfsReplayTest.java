package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.SharedFiles;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;
import org.iwarp4j.testkit.TcpSegment;
import org.junit.jupiter.api.Test;

/**
 * Real Linux bytes from shared/pcaps/nfs3-rdma-siw.pcap, TCP connection 0 (xprtrdma client to
 * svcrdma on port 20049, CRC off): siw sends 32762-octet ULPDUs as a 32764-octet TCP segment
 * followed by the 4-octet CRC field as a segment of its own (frames 42/43, 45/46, 48/50). The
 * capture lost segments later in the client's direction, so the replay stops at the first gap.
 * Expected ULPDU lengths are tshark 4.0's iwarp_mpa.ulpdulength for the same frames.
 */
class SiwNfsReplayTest {

    private static TcpConnection connectionZero() throws Exception {
        return PcapReader.read(SharedFiles.pcap("nfs3-rdma-siw.pcap")).connections().get(0);
    }

    /** The segments that lie wholly before the direction's first lost octet. */
    private static List<TcpSegment> beforeFirstGap(TcpDirection direction) {
        long end = direction.gaps().isEmpty() ? Long.MAX_VALUE : direction.gaps().get(0).streamOffset();
        List<TcpSegment> out = new ArrayList<>();
        for (TcpSegment s : direction.segments()) {
            if (s.endOffset() <= end) {
                out.add(s);
            }
        }
        return out;
    }

    @Test
    void ourResponderDecodesTheClientsFpdusIncludingLoneCrcSegments() throws Exception {
        AtomicReference<MpaConnectRequest> seen = new AtomicReference<>();
        MpaStartupHandler responder = MpaStartupHandler.responder(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).build(),
                request -> {
                    seen.set(request);
                    return CompletableFuture.completedFuture(MpaDecision.accept());
                });
        EmbeddedChannel channel = new EmbeddedChannel(responder);
        List<TcpSegment> segments = beforeFirstGap(connectionZero().clientToServer());
        assertThat(segments.stream().filter(s -> s.length() == 4).count()).as("lone CRC segments").isEqualTo(3);
        for (TcpSegment segment : segments) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        channel.releaseOutbound();

        // MPA2-R-016: Linux's RFC 8797 block reaches the ULP without the RFC 6581 word (IRD 128, ORD 0).
        assertThat(seen.get().enhancedData()).isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 128, 0));
        assertThat(seen.get().ulpPrivateData()).isEqualTo(Hex.decode("f6ab0e18 01010303"));
        assertThat(responder.startup().getNow(null).crc()).isFalse();

        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : Wire.inbound(channel)) {
            lengths.add(u.length);
        }
        assertThat(lengths).containsExactly(86, 150, 150, 150, 86, 150, 150, 154, 170, 206, 182, 190, 202, 202,
                32762, 32762, 32762);
        // The last segment before the gap holds a partial FPDU: held, not delivered.
        channel.checkException();
        channel.close();
    }

    @Test
    void ourInitiatorDecodesTheServersFpdus() throws Exception {
        // svcrdma replies with IRD 0, ORD 128: an Initiator must offer IRD >= 128 (MPA2-R-006).
        MpaStartupHandler initiator = MpaStartupHandler.initiator(
                MpaSettings.builder().crc(NegotiationMode.ACCEPT).ird(128).build());
        EmbeddedChannel channel = new EmbeddedChannel(initiator);
        channel.releaseOutbound();
        for (TcpSegment segment : beforeFirstGap(connectionZero().serverToClient())) {
            channel.writeInbound(Wire.buf(segment.payload()));
        }
        NegotiatedParameters p = initiator.startup().getNow(null);
        assertThat(p.peerEnhancedData()).isEqualTo(new EnhancedConnectionData(false, Collections.emptySet(), 0, 128));
        assertThat(p.peerPrivateData()).isEqualTo(Hex.decode("f6ab0e18 01000303"));
        assertThat(p.ord()).isZero();
        List<Integer> lengths = new ArrayList<>();
        for (byte[] u : Wire.inbound(channel)) {
            lengths.add(u.length);
        }
        assertThat(lengths).containsExactly(70, 126, 102, 158, 70, 126, 158, 166, 162, 150, 98, 322, 190, 46, 46,
                182, 182, 174);
        assertThat(channel.finish()).isFalse();
    }
}
