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
 * back (or {@code null}: nothing; {@link #CLOSE}: close the connection). With {@code stallFirst}
 * the first FPDU of a connection is answered only once a second one has arrived, as Linux siw 6.1
 * can do (docs/siw-interop.md). The options below ({@link #silentFor}, {@link #resetAfterReply},
 * {@link #sendsFirst}, {@link #answersOverlong}, {@link #badCrc}, {@link #closesListenerAfter},
 * {@link #corruptsReplyTo}, {@link #sendsBeforeEachAnswer}) are set before the probe starts.
 */
final class ScriptedResponder implements AutoCloseable {

    /** An answer that makes the Responder close the connection instead of sending anything. */
    static final byte[] CLOSE = new byte[0];

    private static final Duration PER_CONNECTION = Duration.ofSeconds(10);

    private final ServerSocket server;
    private final Thread acceptor;
    private final UnaryOperator<MpaStartupFrame> reply;
    private final Function<byte[], byte[]> answer;
    private final boolean stallFirst;
    private volatile int silentConnections;
    private volatile boolean resetAfterReply;
    private volatile byte[] ownSend;
    private volatile MpaStartupFrame overlongReply;
    private volatile boolean badCrc;
    private volatile int listenerCloseAfter = Integer.MAX_VALUE;
    private volatile java.util.function.Predicate<MpaStartupFrame> corruptReply = r -> false;
    private volatile byte[] sendBeforeAnswer;
    private volatile int sendsBeforeAnswer;
    private int served;
    /** Every ULPDU received, in order, over all connections. */
    final List<byte[]> received = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Every Request received whole, in order. */
    final List<MpaStartupFrame> requests = java.util.Collections.synchronizedList(new ArrayList<>());

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

    /** The first {@code n} connections get no Reply: the Request is read and the connection held until the Initiator closes it. */
    ScriptedResponder silentFor(int n) {
        silentConnections = n;
        return this;
    }

    /** Right after each Reply the connection is reset (SO_LINGER 0, then close: an RST). */
    ScriptedResponder resetAfterReply() {
        resetAfterReply = true;
        return this;
    }

    /** The Responder's own ULPDU (e.g. a Send), sent once the first FPDU arrived (MPA-R-061) and before its answer. */
    ScriptedResponder sendsFirst(byte[] ulpdu) {
        ownSend = ulpdu;
        return this;
    }

    /** The Reply to a Request whose PD_Length is above 512 (by default the connection is closed). */
    ScriptedResponder answersOverlong(MpaStartupFrame frame) {
        overlongReply = frame;
        return this;
    }

    /** Every FPDU sent goes out with its CRC's last octet flipped (a wrong CRC32c). */
    ScriptedResponder badCrc() {
        badCrc = true;
        return this;
    }

    /** The listener is closed once {@code n} connections were accepted: every later connect is refused. */
    ScriptedResponder closesListenerAfter(int n) {
        listenerCloseAfter = n;
        return this;
    }

    /** The Reply to a Request {@code which} takes goes out with its first octet changed: not the Reply key. */
    ScriptedResponder corruptsReplyTo(java.util.function.Predicate<MpaStartupFrame> which) {
        corruptReply = which;
        return this;
    }

    /** Before each answer it sends, the Responder sends {@code ulpdu} (e.g. a Send) {@code n} times (MPA-R-061). */
    ScriptedResponder sendsBeforeEachAnswer(byte[] ulpdu, int n) {
        sendBeforeAnswer = ulpdu;
        sendsBeforeAnswer = n;
        return this;
    }

    InetSocketAddress address() {
        return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket socket = server.accept();
                 ScriptedConnection c = ScriptedConnection.accepted(socket, PER_CONNECTION)) {
                boolean silent = served++ < silentConnections;
                if (served >= listenerCloseAfter) {
                    server.close();
                }
                converse(socket, c, silent);
            } catch (IOException e) {
                // the probe closed or the test ended: next connection
            }
        }
    }

    private void converse(Socket socket, ScriptedConnection c, boolean silent) throws IOException {
        StartupAnswer request = c.readRequest();
        if (request.outcome() == Outcome.MALFORMED && request.detail().startsWith("PD_Length")
                && overlongReply != null) {
            c.sendRaw(ScriptedConnection.encode(overlongReply));
            c.awaitClose(PER_CONNECTION);
            return;
        }
        if (request.outcome() != Outcome.RECEIVED) {
            return;
        }
        requests.add(request.reply());
        if (silent) {
            c.awaitClose(PER_CONNECTION);
            return;
        }
        MpaStartupFrame frame = reply.apply(request.reply());
        if (frame == null) {
            return;
        }
        byte[] replyOctets = ScriptedConnection.encode(frame);
        if (corruptReply.test(request.reply())) {
            replyOctets[0] ^= 0x01;
        }
        c.sendRaw(replyOctets);
        if (resetAfterReply) {
            socket.setSoLinger(true, 0);
            socket.close();
            return;
        }
        if (frame.reject()) {
            c.awaitClose(PER_CONNECTION);
            return;
        }
        c.fullOperation(request.reply().crc() || frame.crc(), request.reply().markers(), frame.markers());
        byte[] held = null;
        boolean stalled = false;
        boolean first = true;
        while (true) {
            Received r = c.next(PER_CONNECTION);
            if (r.outcome() != Outcome.RECEIVED) {
                return;
            }
            received.add(r.ulpdu());
            if (first && ownSend != null) {
                send(c, ownSend);
            }
            first = false;
            if (stallFirst && !stalled) {
                stalled = true;
                held = r.ulpdu();
                continue;
            }
            if (held != null && !respond(c, held)) {
                return;
            }
            held = null;
            if (!respond(c, r.ulpdu())) {
                return;
            }
        }
    }

    /** Sends the answer to {@code ulpdu}, if any; {@code false} if the answer is to close. */
    private boolean respond(ScriptedConnection c, byte[] ulpdu) throws IOException {
        byte[] out = answer.apply(ulpdu);
        if (out == CLOSE) {
            return false;
        }
        if (out != null) {
            for (int i = 0; i < sendsBeforeAnswer; i++) {
                send(c, sendBeforeAnswer);
            }
            send(c, out);
        }
        return true;
    }

    /** Frames and sends one ULPDU, its CRC spoilt if {@link #badCrc} was asked for. */
    private void send(ScriptedConnection c, byte[] ulpdu) {
        byte[] fpdu = c.frame(Unpooled.wrappedBuffer(ulpdu));
        if (badCrc) {
            fpdu[fpdu.length - 1] ^= 0x01;
        }
        c.sendRaw(fpdu);
    }

    @Override
    public void close() throws Exception {
        server.close();
        acceptor.join(PER_CONNECTION.toMillis() * 2);
    }
}
