package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which failed connects the bench client tries again: only refusals (the server not listening
 * yet), within a bounded number and time. Each attempt here fails as scripted, so what is tried
 * again is counted exactly rather than timed against a host that drops SYNs.
 */
class ConnectAttemptsTest {

    private static final Throwable REFUSED = new ConnectException("Connection refused");

    /** An attempt that fails with the scripted causes in turn, then connects. */
    private static final class Script implements ConnectAttempts.Attempt<String> {
        final List<Throwable> failures;
        int attempts;

        Script(Throwable... failures) {
            this.failures = List.of(failures);
        }

        @Override
        public String connect() throws ExecutionException, TimeoutException {
            int i = attempts++;
            if (i >= failures.size()) {
                return "connected";
            }
            Throwable cause = failures.get(i);
            if (cause instanceof TimeoutException timeout) {
                throw timeout;
            }
            throw new ExecutionException(cause);
        }
    }

    private static IOException failed(Throwable last) {
        return new IOException("failed: " + last.getMessage(), last);
    }

    @Test
    void refusalsAreTriedAgainUntilTheServerListens() throws Exception {
        Script script = new Script(REFUSED, REFUSED);

        assertThat(ConnectAttempts.connect(script, ConnectAttempts::refused, ConnectAttemptsTest::failed))
                .isEqualTo("connected");
        assertThat(script.attempts).isEqualTo(3);
    }

    @Test
    void nettysConnectTimeoutIsFinalAtOnce() {
        // Netty's connect timeout is a ConnectException too: it must not pass for a refusal.
        ConnectTimeoutException timeout = new ConnectTimeoutException("connection timed out after 30000 ms: /192.0.2.1:18515");
        Script script = new Script(REFUSED, timeout);

        IOException failure = catchThrowableOfType(
                () -> ConnectAttempts.connect(script, ConnectAttempts::refused, ConnectAttemptsTest::failed),
                IOException.class);

        assertThat(script.attempts).as("the refusal tried again, the timeout not").isEqualTo(2);
        assertThat(failure.getCause()).isSameAs(timeout);
    }

    @Test
    void aTimeoutWaitingForTheConnectionIsFinalAtOnce() {
        Script script = new Script(new TimeoutException());

        IOException failure = catchThrowableOfType(
                () -> ConnectAttempts.connect(script, ConnectAttempts::refused, ConnectAttemptsTest::failed),
                IOException.class);

        assertThat(script.attempts).isEqualTo(1);
        assertThat(failure.getCause()).isInstanceOf(TimeoutException.class);
    }

    @Test
    void otherConnectFailuresAreFinalAtOnce() {
        // Netty's native transports report an unreachable network as a ConnectException as well.
        Script script = new Script(new ConnectException("connect(..) failed: Network is unreachable"));

        catchThrowableOfType(() -> ConnectAttempts.connect(script, ConnectAttempts::refused,
                ConnectAttemptsTest::failed), IOException.class);

        assertThat(script.attempts).isEqualTo(1);
    }

    @Test
    void refusalsStopAfterTheLastAttempt() {
        Throwable[] refusals = new Throwable[ConnectAttempts.ATTEMPTS + 5];
        java.util.Arrays.fill(refusals, REFUSED);
        Script script = new Script(refusals);

        IOException failure = catchThrowableOfType(() -> ConnectAttempts.connect(script, ConnectAttempts::refused,
                ConnectAttemptsTest::failed, () -> 0), IOException.class);

        assertThat(script.attempts).isEqualTo(ConnectAttempts.ATTEMPTS);
        assertThat(failure.getCause()).isSameAs(REFUSED);
    }

    @Test
    void refusalsStopOnceTheRetryTimeIsUp() {
        Throwable[] refusals = new Throwable[ConnectAttempts.ATTEMPTS];
        java.util.Arrays.fill(refusals, REFUSED);
        Script script = new Script(refusals);
        // Each refusal is made to take 4 s of the clock: attempts at 0, 4 and 8 s, none at 12.
        AtomicLong now = new AtomicLong();
        ConnectAttempts.Attempt<String> slow = () -> {
            now.addAndGet(TimeUnit.SECONDS.toNanos(4));
            return script.connect();
        };

        catchThrowableOfType(() -> ConnectAttempts.connect(slow, ConnectAttempts::refused, ConnectAttemptsTest::failed,
                now::get), IOException.class);

        assertThat(ConnectAttempts.RETRY_SECONDS).isEqualTo(10);
        assertThat(script.attempts).isEqualTo(3);
    }

    /**
     * A refusal is recognised by the operating system's words, so each transport's real refusal
     * is checked: a port nobody listens on.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void eachTransportsRealRefusalIsARefusal(Transport transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport.isAvailable(), transport + " not available here");
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        EventLoopGroup group = NettyIo.group(transport);
        try {
            ChannelFuture f = new Bootstrap().group(group).channel(NettyIo.socketChannel(transport))
                    .handler(new ChannelInboundHandlerAdapter()).connect(closed);
            assertThat(f.await(30, TimeUnit.SECONDS)).isTrue();

            assertThat(f.isSuccess()).isFalse();
            assertThat(ConnectAttempts.refused(f.cause())).as("%s", f.cause()).isTrue();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
