package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.iwarp4j.conformance.decode.CaptureDecoder;
import org.iwarp4j.conformance.decode.DecodeOptions;
import org.iwarp4j.conformance.decode.DecodeReport;
import org.iwarp4j.conformance.decode.DecodedUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NFSv4.1 back channel in a capture of an RPC-over-RDMA connection that Linux (the Initiator)
 * opened to our server (the Responder), decoded by the conformance module: our CB_NULL and
 * CB_COMPOUND Calls travel Responder to Initiator as RDMA_MSG (the backward direction, RFC 8167),
 * and Linux's Replies with the same xids travel back, accepted and successful.
 */
final class BackchannelOnWire {

    private static final Logger LOG = LoggerFactory.getLogger(BackchannelOnWire.class);
    /** Linux's callback program number (NFS4_CALLBACK), which it names in CREATE_SESSION. */
    static final long LINUX_CB_PROGRAM = 0x40000000L;
    private static final String TO_INITIATOR = "R>I";
    private static final String TO_RESPONDER = "I>R";

    private BackchannelOnWire() {
    }

    static void assertBothDirections(Path pcap) throws IOException {
        DecodeReport report = CaptureDecoder.decode(pcap, DecodeOptions.DEFAULT);
        Map<String, Long> callProcedures = new HashMap<>();
        for (DecodedUnit u : report.units()) {
            Map<String, Object> rpc = u.layers().get("rpc");
            if (rpc == null || !"CALL".equals(rpc.get("type"))
                    || ((Number) rpc.get("program")).longValue() != LINUX_CB_PROGRAM) {
                continue;
            }
            assertThat(u.direction()).as("a callback goes from our server to the client: %s", u.summary())
                    .isEqualTo(TO_INITIATOR);
            assertThat(u.layers().get("rpcrdma").get("procedure")).as("inline: %s", u.summary())
                    .isEqualTo("RDMA_MSG");
            callProcedures.put((String) rpc.get("xid"), ((Number) rpc.get("procedure")).longValue());
            LOG.info("backward Call in {}, frame {}: {} {}", pcap.getFileName(), u.frame(), u.direction(), u.summary());
        }
        assertThat(callProcedures.values()).as("CB_NULL (0) and CB_COMPOUND (1) Calls in %s", pcap)
                .contains(0L, 1L);
        List<DecodedUnit> replies = report.units().stream()
                .filter(u -> u.layers().containsKey("rpc") && "REPLY".equals(u.layers().get("rpc").get("type"))
                        && callProcedures.containsKey((String) u.layers().get("rpc").get("xid")))
                .collect(Collectors.toList());
        Map<Long, Long> answered = new HashMap<>();
        for (DecodedUnit u : replies) {
            assertThat(u.direction()).as("Linux's reply to our callback: %s", u.summary()).isEqualTo(TO_RESPONDER);
            assertThat(u.layers().get("rpc").get("acceptStat")).as(u.summary()).isEqualTo("SUCCESS");
            answered.merge(callProcedures.get((String) u.layers().get("rpc").get("xid")), 1L, Long::sum);
            LOG.info("backward Reply in {}, frame {}: {} {}", pcap.getFileName(), u.frame(), u.direction(), u.summary());
        }
        assertThat(answered).as("Linux's Replies to CB_NULL and CB_COMPOUND").containsKeys(0L, 1L);
    }
}
