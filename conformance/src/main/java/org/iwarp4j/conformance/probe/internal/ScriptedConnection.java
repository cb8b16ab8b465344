package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.internal.StartupFrameCodec;

/**
 * One probe connection, driven step by step: a blocking TCP socket whose every read is bounded by
 * the connection's deadline, with the project's own MPA codecs ({@link StartupFrameCodec}, {@link
 * MpaFrameEncoder}, {@link MpaFrameDecoder}) run in {@link EmbeddedChannel}s to frame what is sent
 * and unframe what arrives. Reads take exactly the octets asked for, so octets that follow a Reply
 * stay in the socket for the FPDU decoder.
 */
public final class ScriptedConnection implements AutoCloseable {

    /** What a wait for the peer ended with. */
    public enum Outcome {
        /** A startup frame or a ULPDU arrived. */
        RECEIVED,
        /** The peer closed (FIN) or reset the connection. */
        CLOSED,
        /** Nothing within the time allowed. */
        TIMEOUT,
        /** Octets arrived that are not what the protocol allows here (wrong key, bad CRC, ...). */
        MALFORMED
    }

    /**
     * The answer to a Request: the Reply, or why there is none.
     *
     * @param flagsOctet octet 16 of the frame as it arrived, -1 if none did: {@link
     *     MpaStartupFrame#flags()} drops the S bit below revision 2, where it is a reserved bit
     * @param detail for {@link Outcome#CLOSED} the whole phrase ("closed without a Reply", "reset
     *     after 23 of the 28 octets of a Reply")
     */
    public record StartupAnswer(Outcome outcome, MpaStartupFrame reply, String detail, int flagsOctet) {
    }

    /** The next ULPDU (a DDP segment's octets), or why there is none. */
    public record Received(Outcome outcome, byte[] ulpdu, String detail) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long deadlineNanos;
    /** When the connection began: before the connect for one we open (the peer's clocks start after that). */
    private final long openedNanos;
    private EmbeddedChannel encoder;
    private EmbeddedChannel decoder;
    private final ArrayDeque<byte[]> ulpdus = new ArrayDeque<>();
    private String decodeError;
    private String closedHow;
    /**
     * How a failed write ended the connection ("reset", "closed"), or null while writes succeed:
     * the peer is gone, so a read that times out means the connection ended; and the write took
     * the reset's error, so the reads that follow see only an end of stream.
     */
    private String writeFailed;

    private ScriptedConnection(Socket socket, Duration budget, long openedNanos) throws IOException {
        this.socket = socket;
        this.openedNanos = openedNanos;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.deadlineNanos = openedNanos + budget.toNanos();
    }

    /** Wraps a connection a server socket accepted (for a scripted Responder); {@code budget} bounds every wait. */
    public static ScriptedConnection accepted(Socket socket, Duration budget) throws IOException {
        socket.setTcpNoDelay(true);
        return new ScriptedConnection(socket, budget, System.nanoTime());
    }

    /** Connects within {@code budget}, which also bounds every later wait on this connection. */
    public static ScriptedConnection open(InetSocketAddress target, Duration budget) throws IOException {
        return open(target, budget, budget);
    }

    /**
     * Connects within {@code connectLimit}; {@code budget}, counted from before the connect, bounds
     * every later wait. Any failure (an {@link IOException}, or a limit the socket refuses) closes
     * the socket before it is thrown.
     */
    public static ScriptedConnection open(InetSocketAddress target, Duration connectLimit, Duration budget)
            throws IOException {
        long opened = System.nanoTime();
        Socket socket = new Socket();
        boolean done = false;
        try {
            socket.setTcpNoDelay(true);
            socket.connect(target, millis(connectLimit.toNanos()));
            ScriptedConnection c = new ScriptedConnection(socket, budget, opened);
            done = true;
            return c;
        } finally {
            if (!done) {
                closeQuietly(socket);
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the failure being thrown says more
        }
    }

    /** A socket time limit in whole milliseconds: at least 1 (0 would mean forever), at most what an int holds. */
    private static int millis(long nanos) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, nanos / 1_000_000));
    }

    /**
     * Milliseconds since the connection was opened: for one we opened, since before the connect, so
     * that no clock the peer started for the connection can have run longer.
     */
    public long elapsedMillis() {
        return (System.nanoTime() - openedNanos) / 1_000_000;
    }

    /** The frame's octets as {@link StartupFrameCodec} encodes them. */
    public static byte[] encode(MpaStartupFrame frame) {
        ByteBuf buf = StartupFrameCodec.encode(ByteBufAllocator.DEFAULT, frame);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /**
     * Writes octets as they are. A write that the peer's reset (or close) makes fail is not an
     * error of ours: nothing more is written, and the reads say how the connection ended ({@link
     * Outcome#CLOSED}, "reset" if they see nothing else) once the octets that arrived before are
     * read, so that a probe judges the peer's close rather than giving up as if it could not connect.
     */
    public void sendRaw(byte[] octets) {
        if (closedHow != null || writeFailed != null) {
            return;
        }
        try {
            out.write(octets);
            out.flush();
        } catch (IOException e) {
            String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
            writeFailed = message.contains("reset") || message.contains("broken pipe") ? "reset" : "closed";
        }
    }

    /**
     * Reads the peer's startup frame: 20 octets, then PD_Length octets of private data. A wrong
     * key, a Request key or a PD_Length above 512 is {@link Outcome#MALFORMED}.
     */
    public StartupAnswer readReply() throws IOException {
        return readStartupFrame(false);
    }

    /** As {@link #readReply()}, for the Initiator's Request (a scripted Responder's side). */
    public StartupAnswer readRequest() throws IOException {
        return readStartupFrame(true);
    }

    private StartupAnswer readStartupFrame(boolean request) throws IOException {
        String frame = request ? "Request" : "Reply";
        byte[] header = new byte[MpaConstants.STARTUP_FRAME_HEADER_LENGTH];
        int got = readFully(header, remaining());
        if (got < 0) {
            return new StartupAnswer(Outcome.TIMEOUT, null, "no " + frame, -1);
        }
        if (got < header.length) {
            return new StartupAnswer(Outcome.CLOSED, null, got == 0 ? closedHow + " without a " + frame
                    : closedHow + " after " + got + " octets of a " + frame, -1);
        }
        int flags = header[16] & 0xFF;
        byte[] key = request ? MpaConstants.requestKey() : MpaConstants.replyKey();
        for (int i = 0; i < key.length; i++) {
            if (header[i] != key[i]) {
                return new StartupAnswer(Outcome.MALFORMED, null, "the first 16 octets are not \""
                        + new String(key, java.nio.charset.StandardCharsets.US_ASCII) + "\"", flags);
            }
        }
        int pdLength = (header[18] & 0xFF) << 8 | header[19] & 0xFF;
        if (pdLength > MpaConstants.MAX_PRIVATE_DATA) {
            return new StartupAnswer(Outcome.MALFORMED, null, "PD_Length " + pdLength, flags);
        }
        byte[] privateData = new byte[pdLength];
        int pd = readFully(privateData, remaining());
        if (pd < 0) {
            return new StartupAnswer(Outcome.TIMEOUT, null, "no whole " + frame, flags);
        }
        if (pd < pdLength) {
            return new StartupAnswer(Outcome.CLOSED, null, closedHow + " after " + (header.length + pd) + " of the "
                    + (header.length + pdLength) + " octets of a " + frame, flags);
        }
        int revision = header[17] & 0xFF;
        if ((flags & MpaConstants.FLAG_ENHANCED) != 0 && revision >= MpaConstants.REVISION_2
                && pdLength < MpaConstants.ENHANCED_DATA_LENGTH) {
            return new StartupAnswer(Outcome.MALFORMED, null, "enhanced frame without the IRD/ORD word", flags);
        }
        return new StartupAnswer(Outcome.RECEIVED, MpaStartupFrame.fromWire(request, flags, revision, privateData), "",
                flags);
    }

    /**
     * Sets up the FPDU codecs of Full Operation (RFC 5044 §4): CRC as negotiated (MPA-R-047),
     * markers toward the peer if its frame had M, markers expected from it if ours had M
     * (MPA-R-046). Call once, before the first FPDU is sent or read; an FPDU sent before the Reply
     * (a probe of its own) needs the codecs before the Reply is read.
     */
    public void fullOperation(boolean crc, boolean markersToPeer, boolean markersFromPeer) {
        if (encoder != null) {
            return;
        }
        encoder = new EmbeddedChannel(new MpaFrameEncoder(markersToPeer, crc, false));
        decoder = new EmbeddedChannel(new MpaFrameDecoder(markersFromPeer, crc, MpaConstants.MAX_ULPDU_LENGTH_FIELD),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf ulpdu = (ByteBuf) msg;
                        try {
                            ulpdus.add(ByteBufUtil.getBytes(ulpdu));
                        } finally {
                            ulpdu.release();
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        if (decodeError == null) {
                            decodeError = String.valueOf(cause.getMessage());
                        }
                    }
                });
    }

    /** Frames {@code ulpdu} (released here) as one FPDU and writes it (as {@link #sendRaw}). */
    public void send(ByteBuf ulpdu) {
        byte[] fpdu = frame(ulpdu);
        sendRaw(fpdu);
    }

    /** The FPDU octets for {@code ulpdu} (released here), without sending them. */
    public byte[] frame(ByteBuf ulpdu) {
        encoder.writeOutbound(ulpdu);
        ByteBuf framed = Unpooled.buffer();
        try {
            for (Object o; (o = encoder.readOutbound()) != null; ) {
                ByteBuf part = (ByteBuf) o;
                framed.writeBytes(part);
                part.release();
            }
            return ByteBufUtil.getBytes(framed);
        } finally {
            framed.release();
        }
    }

    /** The next ULPDU from the peer, waiting at most {@code max} (and never past the deadline). */
    public Received next(Duration max) throws IOException {
        long until = Math.min(deadlineNanos, System.nanoTime() + max.toNanos());
        byte[] chunk = new byte[8192];
        while (true) {
            if (!ulpdus.isEmpty()) {
                return new Received(Outcome.RECEIVED, ulpdus.poll(), "");
            }
            if (decodeError != null) {
                return new Received(Outcome.MALFORMED, null, decodeError);
            }
            if (closedHow != null) {
                return new Received(Outcome.CLOSED, null, closedHow);
            }
            long left = until - System.nanoTime();
            if (left <= 0) {
                return new Received(Outcome.TIMEOUT, null, "nothing within " + max.toMillis() + " ms");
            }
            int n = read(chunk, 0, chunk.length, left);
            if (n > 0) {
                decoder.writeInbound(Unpooled.wrappedBuffer(chunk, 0, n).copy());
            }
        }
    }

    /**
     * Waits until the peer closes, reading and discarding whatever arrives, for at most {@code max}
     * and never past the connection's deadline.
     *
     * @return milliseconds from the call until the close, or -1 if the connection was still open
     */
    public long awaitClose(Duration max) throws IOException {
        long start = System.nanoTime();
        long until = Math.min(deadlineNanos, start + max.toNanos());
        byte[] chunk = new byte[8192];
        while (closedHow == null) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return -1;
            }
            read(chunk, 0, chunk.length, left);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** How the peer ended the connection ({@code "closed"}, {@code "reset"}), or {@code null} while open. */
    public String closedHow() {
        return closedHow;
    }

    private long remaining() {
        return deadlineNanos - System.nanoTime();
    }

    /** Reads {@code buf.length} octets; returns that, or fewer when the peer closed, or -1 on timeout. */
    private int readFully(byte[] buf, long nanos) throws IOException {
        long until = System.nanoTime() + nanos;
        int got = 0;
        while (got < buf.length) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return -1;
            }
            int n = read(buf, got, buf.length - got, left);
            if (n < 0) {
                return got;
            }
            if (n == 0) {
                return -1;
            }
            got += n;
        }
        return got;
    }

    /** One socket read bounded by {@code nanos}: octets read, 0 on timeout, -1 once the peer closed. */
    private int read(byte[] buf, int off, int len, long nanos) throws IOException {
        if (closedHow != null) {
            return -1;
        }
        socket.setSoTimeout(millis(nanos));
        try {
            int n = in.read(buf, off, len);
            if (n < 0) {
                closedHow = writeFailed != null ? writeFailed : "closed";
            }
            return n;
        } catch (SocketTimeoutException e) {
            if (writeFailed != null) {
                closedHow = writeFailed;
                return -1;
            }
            return 0;
        } catch (EOFException e) {
            closedHow = writeFailed != null ? writeFailed : "closed";
            return -1;
        } catch (SocketException e) {
            closedHow = "reset";
            return -1;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            socket.close();
        } finally {
            if (encoder != null) {
                encoder.finishAndReleaseAll();
                decoder.finishAndReleaseAll();
            }
        }
    }
}
