package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection caps of {@link Rnic#listen}: a connection over the listener's cap or over the cap
 * of its client address is closed as soon as it is accepted, so its Initiator gets no MPA Reply at
 * all (zero octets, then end of stream), while connections within the caps get their MPA Reply.
 */
class ListenerLimitsTest {

    private static final int WAIT_MILLIS = 5000;
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<Socket> sockets = new ArrayList<>();
    private Rnic server;
    private Rnic client;

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (client != null) {
            client.close();
        }
        server.close();
    }

    /** A listener that rejects every MPA Request it reads (with an MPA Reply, R=1). */
    private Listener rejectingListener() throws InterruptedException {
        return server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                request -> request.reject(new byte[0]));
    }

    private Socket connect(Listener listener, String from) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.setSoTimeout(WAIT_MILLIS);
        s.bind(new InetSocketAddress(from, 0));
        s.connect(listener.localAddress(), WAIT_MILLIS);
        return s;
    }

    private static void sendMpaRequest(Socket s) throws IOException {
        // RFC 5044 Request: M=0, C=1, Rev 1, no private data.
        s.getOutputStream().write(TestVectors.bytes("V-MPA-REQ1"));
    }

    /**
     * The first 16 octets the listener sends (an MPA Reply's key), or fewer if it closes the
     * connection first: none for a connection closed at accept.
     */
    private static byte[] firstOctets(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            return in.readNBytes(REPLY_KEY.length);
        } catch (SocketException reset) {
            return new byte[0];
        }
    }

    /**
     * The first octets a new connection from 127.0.0.1 gets, connecting again while they are none
     * (refused at accept) for up to {@value #WAIT_MILLIS} ms: a place given back on a close comes
     * back when the server's side of the connection is closed, which may follow its FIN by a moment.
     */
    private byte[] firstOctetsOnceAdmitted(Listener listener) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        byte[] octets = new byte[0];
        while (octets.length == 0 && System.nanoTime() < deadline) {
            Socket again = connect(listener, "127.0.0.1");
            sendMpaRequest(again);
            octets = firstOctets(again);
        }
        return octets;
    }

    private double refused(String cap) {
        return meters.get("iwarp.rdmap.connections.refused").tag("cap", cap).counter().count();
    }

    @Test
    void aConnectionOverTheListenersCapIsClosedBeforeAnyMpaReply() throws Exception {
        server = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).maxConnectionsPerListener(1).build();
        Listener listener = rejectingListener();
        Socket first = connect(listener, "127.0.0.1");
        Socket second = connect(listener, "127.0.0.1");
        sendMpaRequest(first);
        sendMpaRequest(second);

        assertThat(firstOctets(second)).as("octets sent to the connection over the cap").isEmpty();
        assertThat(firstOctets(first)).as("first connection's MPA Reply").isEqualTo(REPLY_KEY);
        assertThat(refused("listener")).isEqualTo(1.0);

        // Once the first is closed, its place comes back for a new one.
        first.close();
        byte[] later = firstOctetsOnceAdmitted(listener);
        assertThat(later).isEqualTo(REPLY_KEY);
    }

    @Test
    void aConnectionOverTheAddressCapIsClosedWhileOtherAddressesGetTheirReply() throws Exception {
        server = Rnic.builder().eventLoopThreads(1).meterRegistry(meters).maxConnectionsPerAddress(1).build();
        Listener listener = rejectingListener();
        Socket held = connect(listener, "127.0.0.1"); // sends nothing: admitted and still open
        Socket second = connect(listener, "127.0.0.1");
        Socket other = connect(listener, "127.0.0.2");
        sendMpaRequest(second);
        sendMpaRequest(other);

        assertThat(firstOctets(second)).isEmpty();
        assertThat(firstOctets(other)).isEqualTo(REPLY_KEY);
        assertThat(refused("address")).isEqualTo(1.0);
        assertThat(refused("listener")).isZero();
        assertThat(held.isClosed()).isFalse();
    }

    @Test
    void aQueuePairConnectingOverTheCapFailsToEstablish() throws Exception {
        server = Rnic.builder().eventLoopThreads(1).maxConnectionsPerListener(1).build();
        client = Rnic.builder().eventLoopThreads(1).build();
        ProtectionDomain serverPd = server.allocateProtectionDomain();
        CompletionQueue serverCq = server.createCompletionQueue(8);
        Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                request -> request.accept(server.createQueuePair(QueuePairSettings.builder(serverPd, serverCq).build())));
        ProtectionDomain pd = client.allocateProtectionDomain();
        CompletionQueue cq = client.createCompletionQueue(8);
        QueuePair first = client.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        first.connect(listener.localAddress()).get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        QueuePair second = client.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        Throwable failure = catchThrowable(() -> second.connect(listener.localAddress()).get(WAIT_MILLIS,
                TimeUnit.MILLISECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class);
        assertThat(second.state()).isEqualTo(QueuePairState.ERROR);
        assertThat(first.state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void aRejectedConnectionIsClosedAfterItsMpaReply() throws Exception {
        server = Rnic.builder().eventLoopThreads(1).build();
        Listener listener = rejectingListener();
        Socket s = connect(listener, "127.0.0.1");
        sendMpaRequest(s);
        assertThat(firstOctets(s)).isEqualTo(REPLY_KEY);
        byte[] rest = s.getInputStream().readNBytes(4); // flags, revision, PD_Length: the rest of the Reply
        assertThat(rest[0] & 0x20).as("R bit").isNotZero();
        assertThat(s.getInputStream().read()).as("end of stream after the Reply").isEqualTo(-1);
    }

    /**
     * MPA-R-056, docs/limits.md: a Responder that rejects a Request itself (the Initiator asks for CRC,
     * which is off here: {@code iwarp rping -s --crc=off}) closes the connection once its Reply (R=1)
     * has gone out, as after the ULP's reject, and the connection's place under the caps comes back.
     * Before, such a connection stayed open for as long as the Initiator liked, holding its place.
     */
    @Test
    void aRequestForCrcThatIsOffHereGetsARejectAndTheConnectionIsClosedGivingItsPlaceBack() throws Exception {
        server = Rnic.builder().eventLoopThreads(1).maxConnectionsPerAddress(1).build();
        Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0),
                MpaSettings.builder().crc(NegotiationMode.OFF).build(),
                request -> { throw new AssertionError("MPA refuses the Request before the ULP sees it"); });
        // Key, then flags R=1 M=0 C=0, revision 1, PD_Length 0 (RFC 5044 §7.1.1).
        byte[] reject = new byte[REPLY_KEY.length + 4];
        System.arraycopy(REPLY_KEY, 0, reject, 0, REPLY_KEY.length);
        reject[REPLY_KEY.length] = 0x20;
        reject[REPLY_KEY.length + 1] = 1;

        Socket s = connect(listener, "127.0.0.1");
        sendMpaRequest(s); // C=1
        assertThat(s.getInputStream().readNBytes(reject.length)).isEqualTo(reject);
        // Within the socket's timeout (5 s, far below the 10 s MPA startup timeout, which no longer applies)
        assertThat(s.getInputStream().read()).as("end of stream after the Reply").isEqualTo(-1);

        // The cap of one per address: a new connection is admitted (gets its Reply) again.
        byte[] later = firstOctetsOnceAdmitted(listener);
        assertThat(later).as("the first connection's place came back").isEqualTo(REPLY_KEY);
    }
}
