package org.iwarp4j.conformance.probe.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.junit.jupiter.api.Test;

/** {@link ScriptedConnection} at its limits: time budgets beyond an int of milliseconds, Replies cut short, writes into a reset. */
class ProbeScriptedConnectionTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Serves one connection: reads {@code requestLength} octets, writes {@code reply}, then closes (with an RST if asked). */
    private static CompletableFuture<Void> serveOnce(ServerSocket server, int requestLength, byte[] reply, boolean reset) {
        return CompletableFuture.runAsync(() -> {
            try (Socket s = server.accept()) {
                s.setSoTimeout((int) WAIT.toMillis());
                InputStream in = s.getInputStream();
                in.readNBytes(requestLength);
                OutputStream out = s.getOutputStream();
                out.write(reply);
                out.flush();
                if (reset) {
                    s.setSoLinger(true, 0);
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static InetSocketAddress address(ServerSocket server) {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    /**
     * A budget of 30 days is more milliseconds than an int holds: the connect and read limits
     * used to wrap negative (IllegalArgumentException from the socket, which leaked). They are
     * capped now, and the Reply is read.
     */
    @Test
    void aBudgetBeyondAnIntOfMillisecondsStillConnectsAndReads() throws Exception {
        byte[] reply = ScriptedConnection.encode(MpaStartupFrame.reply(false, true, false, 1, null, new byte[0]));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = serveOnce(server, 20, reply, false);
            try (ScriptedConnection c = ScriptedConnection.open(address(server), Duration.ofDays(30))) {
                c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, true, 1, null, new byte[0])));
                StartupAnswer answer = c.readReply();
                assertThat(answer.outcome()).isEqualTo(Outcome.RECEIVED);
                assertThat(answer.flagsOctet()).isEqualTo(0x40);
            }
            peer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** A Reply whose private data stops short is said once, with the octets that came: not "cut short without a Reply". */
    @Test
    void aReplyCutShortSaysHowMuchCame() throws Exception {
        byte[] whole = ScriptedConnection.encode(MpaStartupFrame.reply(false, true, false, 1, null, new byte[8]));
        byte[] cut = java.util.Arrays.copyOf(whole, 23);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = serveOnce(server, 20, cut, false);
            try (ScriptedConnection c = ScriptedConnection.open(address(server), WAIT)) {
                c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, true, 1, null, new byte[0])));
                StartupAnswer answer = c.readReply();
                assertThat(answer.outcome()).isEqualTo(Outcome.CLOSED);
                assertThat(answer.detail()).isEqualTo("closed after 23 of the 28 octets of a Reply");
            }
            peer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * A peer that resets right after its Reply: our next writes fail, which is not an error
     * thrown at the probe; the next read reports the connection reset.
     */
    @Test
    void writingIntoAResetConnectionIsNotAnError() throws Exception {
        byte[] reply = ScriptedConnection.encode(MpaStartupFrame.reply(false, true, false, 1, null, new byte[0]));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> peer = serveOnce(server, 20, reply, true);
            try (ScriptedConnection c = ScriptedConnection.open(address(server), WAIT)) {
                c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, true, 1, null, new byte[0])));
                assertThat(c.readReply().outcome()).isEqualTo(Outcome.RECEIVED);
                peer.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);  // the RST is on its way
                c.fullOperation(true, false, false);
                for (int i = 0; i < 4; i++) {
                    c.send(Wire.zeroLengthSend(i + 1));
                }
                ScriptedConnection.Received next = c.next(WAIT);
                assertThat(next.outcome()).isEqualTo(Outcome.CLOSED);
                assertThat(next.detail()).isEqualTo("reset");
            }
        }
    }
}
