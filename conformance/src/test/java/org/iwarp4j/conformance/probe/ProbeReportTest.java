package org.iwarp4j.conformance.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ProbeReport#exitStatus()}: which of 1, 3, 4 and 0 wins when more than one applies. */
class ProbeReportTest {

    private static Observation observation(String probe, Verdict verdict, String observed) {
        return new Observation(probe, "MPA-R-015", verdict, observed, "", Map.of(), 0);
    }

    private static ProbeReport report(int connected, int replies, Observation... observations) {
        return new ProbeReport("127.0.0.1:7174", Instant.EPOCH, 1, 15, connected, replies, 5000, 20000,
                List.of(observations));
    }

    @Test
    void aFailureWinsOverAFirstConnectionThatFailed() {
        ProbeReport r = report(14, 13, observation("mpa-revision-2", Verdict.INCONCLUSIVE,
                "connection failed: Connection refused"), observation("markers", Verdict.FAIL, "rejects markers with R=1"));
        assertThat(r.exitStatus()).isEqualTo(1);
    }

    @Test
    void noConnectionAtAllIsThree() {
        assertThat(report(0, 0, observation("mpa-revision-2", Verdict.INCONCLUSIVE,
                "connection failed: Connection refused")).exitStatus()).isEqualTo(3);
    }

    @Test
    void connectionsWithoutAnyReplyAreFour() {
        assertThat(report(15, 0, observation("mpa-revision-2", Verdict.INCONCLUSIVE, "no Reply within the timeout"),
                observation("startup-timeout", Verdict.WARN, "still open")).exitStatus()).isEqualTo(4);
    }

    @Test
    void aFirstConnectionThatFailedIsNotThreeWhenOthersWereMade() {
        assertThat(report(14, 13, observation("mpa-revision-2", Verdict.INCONCLUSIVE,
                "connection failed: Connection refused"), observation("markers", Verdict.PASS, "")).exitStatus()).isZero();
    }

    @Test
    void theJsonSaysHowManyConnectionsWereMadeAndRepliesCame() {
        assertThat(report(14, 13).toJson()).contains("\"connections\":15,\"connected\":14,\"replies\":13,");
    }
}
