package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The smallest QMP client that adds port forwards to a running VM and asks it for its run state:
 * QEMU's monitor protocol (JSON lines over a unix socket) carrying the human monitor's {@code
 * hostfwd_add}, and {@code query-status}. Replies to a human-monitor-command are {@code
 * {"return": "<text>"}}, empty text meaning success. Asynchronous event lines are skipped.
 */
final class Qmp implements AutoCloseable {

    private final SocketChannel channel;
    private final BufferedReader in;

    private Qmp(SocketChannel channel) throws IOException {
        this.channel = channel;
        this.in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
        String greeting = in.readLine();
        if (greeting == null || !greeting.contains("\"QMP\"")) {
            throw new IOException("not a QMP greeting: " + greeting);
        }
        send("{\"execute\": \"qmp_capabilities\"}");
        reply();
    }

    /**
     * Connects to QEMU's monitor and negotiates capabilities, at most {@code timeout}: QEMU greets
     * at once, but a wedged QEMU would block the greeting's read for ever, and a blocking read on a
     * {@link SocketChannel} has no timeout of its own. So a timer closes the channel when the time
     * is up, which ends the blocked read with an {@link java.nio.channels.AsynchronousCloseException}.
     *
     * @throws IOException if the socket refuses, QEMU does not speak QMP, or it did not greet and
     *     answer {@code qmp_capabilities} within {@code timeout}
     */
    static Qmp connect(Path socket, Duration timeout) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        AtomicBoolean settled = new AtomicBoolean();
        CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (settled.compareAndSet(false, true)) {
                closeQuietly(channel);
            }
        });
        try {
            channel.connect(UnixDomainSocketAddress.of(socket));
            Qmp qmp = new Qmp(channel);
            if (!settled.compareAndSet(false, true)) {
                throw new IOException("the timer closed the channel as the greeting arrived");
            }
            return qmp;
        } catch (IOException e) {
            boolean timedOut = !settled.compareAndSet(false, true);
            closeQuietly(channel);
            throw timedOut ? new IOException("QEMU's monitor at " + socket + " did not greet and answer "
                    + "qmp_capabilities within " + timeout + " (channel closed)", e) : e;
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing is all we wanted
        }
    }

    private static final Pattern STATUS = Pattern.compile("\"status\": *\"([^\"]+)\"");

    /**
     * QEMU's run state of the VM ({@code query-status}): {@code running}, or why the guest does
     * not run, e.g. {@code paused}, {@code guest-panicked}, {@code internal-error}, {@code shutdown}.
     * A guest whose kernel hangs is still {@code running} to QEMU.
     */
    synchronized String status() throws IOException {
        send("{\"execute\": \"query-status\"}");
        String reply = reply();
        Matcher m = STATUS.matcher(reply);
        if (!m.find()) {
            throw new IOException("QMP error for query-status: " + reply);
        }
        return m.group(1);
    }

    /** Runs a QMP command with {@code arguments} (a JSON object, or null); throws if QEMU refuses it. */
    synchronized void execute(String command, String arguments) throws IOException {
        send("{\"execute\": \"" + command + "\"" + (arguments == null ? "" : ", \"arguments\": " + arguments) + "}");
        String reply = reply();
        if (!reply.contains("\"return\"")) {
            throw new IOException("QMP error for " + command + ": " + reply);
        }
    }

    /** Runs a human monitor command and returns its output (empty for hostfwd_add success). */
    synchronized String humanCommand(String commandLine) throws IOException {
        send("{\"execute\": \"human-monitor-command\", \"arguments\": {\"command-line\": \""
                + commandLine.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}}");
        String reply = reply();
        int start = reply.indexOf("\"return\": \"");
        if (start < 0) {
            throw new IOException("QMP error for '" + commandLine + "': " + reply);
        }
        String text = reply.substring(start + "\"return\": \"".length());
        return text.substring(0, text.lastIndexOf('"')).replace("\\r", "").replace("\\n", "\n").strip();
    }

    private void send(String json) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap((json + "\n").getBytes(StandardCharsets.UTF_8));
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private String reply() throws IOException {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.contains("\"return\"") || line.contains("\"error\"")) {
                return line;
            }
        }
        throw new IOException("QMP connection closed");
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
