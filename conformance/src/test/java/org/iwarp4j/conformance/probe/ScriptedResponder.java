package org.iwarp4j.conformance.probe;

import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.MpaStartupFrame;

/**
 * A hand-scripted MPA Responder for behaviours our own RNIC cannot be configured into (a
 * Terminate with swapped nibbles, headers left out, an FPDU left unread until more data comes).
 * It serves one connection after the other on loopback: {@code reply} turns each Request into the
 * Reply (or {@code null}: close without one), {@code answer} each ULPDU into the ULPDU to send
 * back (or {@code null}: nothing). With {@code stallFirst} the first FPDU of a connection is
 * answered only once a second one has arrived, as Linux siw 6.1 can do (docs/siw-interop.md).
 */
final class ScriptedResponder implements AutoCloseable {

    private static final Duration PER_CONNECTION = Duration.ofSeconds(10);

    private final ServerSocket server;
    private final Thread acceptor;
    private final UnaryOperator<MpaStartupFrame> reply;
    private final Function<byte[], byte[]> answer;
    private final boolean stallFirst;
    /** Every ULPDU received, in order, over all connections. */
    final List<byte[]> received = java.util.Collections.synchronizedList(new ArrayList<>());

    ScriptedResponder(UnaryOperator<MpaStartupFrame> reply, Function<byte[], byte[]> answer, boolean stallFirst)
            throws IOException {
        this.reply = reply;
        this.answer = answer;
        this.stallFirst = stallFirst;
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::serve, "scripted-responder");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept();
                 ScriptedConnection c = ScriptedConnection.accepted(socket, PER_CONNECTION)) {
                converse(c);
            } catch (IOException e) {
                // the probe closed or the test ended: next connection
            }
        }
    }

    private void converse(ScriptedConnection c) throws IOException {
        StartupAnswer request = c.readRequest();
        if (request.outcome() != Outcome.RECEIVED) {
            return;
        }
        MpaStartupFrame frame = reply.apply(request.reply());
        if (frame == null) {
            return;
        }
        c.sendRaw(ScriptedConnection.encode(frame));
        if (frame.reject()) {
            return;
        }
        c.fullOperation(request.reply().crc() || frame.crc(), request.reply().markers(), frame.markers());
        byte[] held = null;
        boolean stalled = false;
        while (true) {
            Received r = c.next(PER_CONNECTION);
            if (r.outcome() != Outcome.RECEIVED) {
                return;
            }
            received.add(r.ulpdu());
            if (stallFirst && !stalled) {
                stalled = true;
                held = r.ulpdu();
                continue;
            }
            if (held != null) {
                respond(c, held);
                held = null;
            }
            respond(c, r.ulpdu());
        }
    }

    private void respond(ScriptedConnection c, byte[] ulpdu) throws IOException {
        byte[] out = answer.apply(ulpdu);
        if (out != null) {
            c.send(Unpooled.wrappedBuffer(out));
        }
    }

    @Override
    public void close() throws Exception {
        server.close();
        acceptor.join(PER_CONNECTION.toMillis() * 2);
    }
}
