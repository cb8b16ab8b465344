package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A listener's handler that accepts with a queue pair of another RNIC (finding 8 of docs/limits.md's
 * tenth review): the connection would run on this RNIC's event loops and survive its own RNIC's
 * close, its regions still reachable by the peer. It is refused as an accept with a queue pair
 * already in use is: an MPA Reply with R=1 (RFC 5044 §7.1.1), the connection closed after it, a
 * warning; the queue pair is left as it was, for its own RNIC.
 */
@Timeout(60)
class ForeignQueuePairAcceptTest {

    private static final int WAIT_SECONDS = 5;

    @Test
    void acceptingWithAQueuePairOfAnotherRnicSendsAnMpaRejectAndLeavesTheQueuePairUnused() throws Exception {
        try (Rnic listening = Rnic.builder().eventLoopThreads(1).name("listening").build();
             Rnic other = Rnic.builder().eventLoopThreads(1).name("other").build()) {
            ProtectionDomain otherPd = other.allocateProtectionDomain();
            CompletionQueue otherCq = other.createCompletionQueue(8);
            QueuePair foreign = other.createQueuePair(QueuePairSettings.builder(otherPd, otherCq).build());
            try (Listener listener = listening.listen(new InetSocketAddress("127.0.0.1", 0),
                    MpaSettings.builder().build(), request -> request.accept(foreign));
                 Socket s = new Socket()) {
                s.setSoTimeout(WAIT_SECONDS * 1000);
                s.connect(listener.localAddress(), WAIT_SECONDS * 1000);
                s.getOutputStream().write(TestVectors.bytes("V-MPA-REQ1")); // revision 1, C=1
                InputStream in = s.getInputStream();
                // The Reply key, then R=1 and C=1 (CRC is required here), revision 1, no private data.
                assertThat(Hex.encode(in.readNBytes(20))).isEqualTo(Hex.encode(TestVectors.bytes("V-MPA-KEY-REP"))
                        + "60" + "01" + "0000");
                assertThat(in.read()).as("end of stream after the Reply").isEqualTo(-1);

                // An iWARP Initiator's connect fails as for any reject.
                QueuePair initiator = other.createQueuePair(QueuePairSettings.builder(otherPd, otherCq).build());
                assertThat(initiator.connect(listener.localAddress())).failsWithin(WAIT_SECONDS, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(MpaRejectedException.class);
            }
            assertThat(foreign.state()).isEqualTo(QueuePairState.IDLE);

            // Still its own RNIC's to connect: a listener of that RNIC accepts with it.
            ProtectionDomain pd = listening.allocateProtectionDomain();
            try (Listener own = other.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> request.accept(foreign))) {
                QueuePair client = listening.createQueuePair(QueuePairSettings.builder(pd,
                        listening.createCompletionQueue(8)).build());
                client.connect(own.localAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(foreign.established().get(WAIT_SECONDS, TimeUnit.SECONDS)).isSameAs(foreign);
                assertThat(foreign.state()).isEqualTo(QueuePairState.RTS);
            }
        }
    }
}
