package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's duplicate request cache (RFC 5531 §9; knfsd's reply cache): a retransmitted
 * call to a non-idempotent procedure is answered with the first transmission's reply, octet for
 * octet, and the procedure runs once.
 */
class RpcDispatcherDuplicateRequestTest {

    private static final int PROG = 0x20000099;
    private static final int ADD_ONCE = 1;
    private static final int ADD = 2;
    private static final int HELD = 3;
    private static final int LONG_REPLY = 4;
    private static final String AUTH_NONE = "00000000 00000000";
    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.1", 700);
    private static final InetSocketAddress CLIENT_RECONNECTED = new InetSocketAddress("192.0.2.1", 701);
    private static final InetSocketAddress OTHER_CLIENT = new InetSocketAddress("192.0.2.2", 700);
    private static final long SECOND = 1_000_000_000L;

    private final AtomicInteger executions = new AtomicInteger();
    private final LinkedBlockingQueue<CompletableFuture<XdrMessage>> held = new LinkedBlockingQueue<>();
    private final AtomicLong clock = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private RpcProgram program() {
        return RpcProgram.builder(PROG, 1)
                .nonIdempotentProcedure(ADD_ONCE, RpcProcedure.of((ctx, args, results) -> {
                    executions.incrementAndGet();
                    results.writeInt(args.readInt() + args.readInt());
                }))
                .procedure(ADD, RpcProcedure.of((ctx, args, results) -> {
                    executions.incrementAndGet();
                    results.writeInt(args.readInt() + args.readInt());
                }))
                .nonIdempotentProcedure(HELD, (ctx, args) -> {
                    executions.incrementAndGet();
                    CompletableFuture<XdrMessage> f = new CompletableFuture<>();
                    held.add(f);
                    return f;
                })
                .nonIdempotentProcedure(LONG_REPLY, RpcProcedure.of((ctx, args, results) -> {
                    executions.incrementAndGet();
                    for (int i = 0; i < 100; i++) {
                        results.writeInt(i);
                    }
                }))
                .build();
    }

    private RpcDispatcher dispatcher(int entries) {
        return new RpcDispatcher(registry, new DuplicateRequestCacheLimits(entries, 64, Duration.ofMinutes(2)),
                clock::get).register(program());
    }

    private static String call(int xid, int proc, String args) {
        return String.format("%08x 00000000 00000002 %08x 00000001 %08x ", xid, PROG, proc) + AUTH_NONE + " "
                + AUTH_NONE + " " + args;
    }

    private static CompletableFuture<XdrMessage> send(RpcDispatcher d, String call, InetSocketAddress from) {
        return d.dispatch(XdrBytes.message(call), RpcTransportInfo.of("test", null, from));
    }

    /** The reply's octets as hex; the reply is released. */
    private static String replyOf(CompletableFuture<XdrMessage> reply) throws Exception {
        XdrMessage message = reply.get(5, TimeUnit.SECONDS);
        try {
            return XdrBytes.hex(message);
        } finally {
            message.release();
        }
    }

    private double counted(String outcome) {
        return registry.get("iwarp.oncrpc.duplicates").tag("outcome", outcome).counter().count();
    }

    @Test
    void aRetransmissionGetsTheFirstReplyAndTheProcedureRunsOnce() throws Exception {
        RpcDispatcher d = dispatcher(16);
        String first = replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT));
        assertThat(first).isEqualTo(XdrBytes.plain("00000007 00000001 00000000 " + AUTH_NONE + " 00000000 00000005"));
        assertThat(replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT))).isEqualTo(first);
        assertThat(replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT_RECONNECTED)))
                .as("the same host from another port: a client that reconnected").isEqualTo(first);
        assertThat(executions).hasValue(1);
        assertThat(counted("replayed")).isEqualTo(2);
        assertThat(registry.get("iwarp.oncrpc.replies").tag("stat", "SUCCESS").counter().count())
                .as("replayed replies are not counted as replies of the program").isEqualTo(1);
    }

    @Test
    void anotherXidAnotherHostOtherArgumentsOrAnIdempotentProcedureRunAgain() throws Exception {
        RpcDispatcher d = dispatcher(16);
        replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT));
        replyOf(send(d, call(8, ADD_ONCE, "00000002 00000003"), CLIENT));
        replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), OTHER_CLIENT));
        assertThat(replyOf(send(d, call(7, ADD_ONCE, "00000002 00000004"), CLIENT))).endsWith("00000006");
        assertThat(executions).hasValue(4);
        replyOf(send(d, call(9, ADD, "00000002 00000003"), CLIENT));
        replyOf(send(d, call(9, ADD, "00000002 00000003"), CLIENT));
        assertThat(executions).hasValue(6);
        assertThat(counted("replayed")).isZero();
    }

    /** AUTH_SYS with {@code uid}: flavor 1, stamp, empty machine name, uid, gid 0, no groups. */
    private static String authSys(int uid) {
        return String.format("00000001 00000014 00000001 00000000 %08x 00000000 00000000", uid);
    }

    private static String callAs(int uid, int xid, int proc, String args) {
        return String.format("%08x 00000000 00000002 %08x 00000001 %08x ", xid, PROG, proc) + authSys(uid) + " "
                + AUTH_NONE + " " + args;
    }

    @Test
    void anotherUsersCallFromTheSameHostWithTheSameXidAndArgumentsIsNotARetransmission() throws Exception {
        RpcDispatcher d = dispatcher(16);
        replyOf(send(d, callAs(1000, 7, ADD_ONCE, "00000002 00000003"), CLIENT));
        replyOf(send(d, callAs(1001, 7, ADD_ONCE, "00000002 00000003"), CLIENT_RECONNECTED));
        assertThat(executions).hasValue(2);
        replyOf(send(d, callAs(1000, 7, ADD_ONCE, "00000002 00000003"), CLIENT_RECONNECTED));
        assertThat(executions).as("the first user's retransmission").hasValue(2);
        assertThat(counted("replayed")).isEqualTo(1);
    }

    @Test
    void aRetransmissionWhileTheFirstRunsWaitsForItsReply() throws Exception {
        RpcDispatcher d = dispatcher(16);
        CompletableFuture<XdrMessage> first = send(d, call(11, HELD, ""), CLIENT);
        CompletableFuture<XdrMessage> second = send(d, call(11, HELD, ""), CLIENT_RECONNECTED);
        assertThat(executions).hasValue(1);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        XdrEncoder results = XdrEncoder.create();
        results.writeInt(42);
        held.poll(5, TimeUnit.SECONDS).complete(results.toMessage());
        String expected = XdrBytes.plain("0000000b 00000001 00000000 " + AUTH_NONE + " 00000000 0000002a");
        assertThat(replyOf(first)).isEqualTo(expected);
        assertThat(replyOf(second)).isEqualTo(expected);
        assertThat(executions).hasValue(1);
        assertThat(counted("replayed")).isEqualTo(1);
    }

    @Test
    void aReplyTooLongToKeepLeavesAWaitingRetransmissionUnansweredAndALaterOneRunsAgain() throws Exception {
        RpcDispatcher d = dispatcher(16);
        CompletableFuture<XdrMessage> first = send(d, call(12, LONG_REPLY, ""), CLIENT);
        assertThat(replyOf(first)).hasSize(2 * (24 + 400)); // hex: header and 100 ints, more than the 64 kept
        assertThat(executions).hasValue(1);
        CompletableFuture<XdrMessage> later = send(d, call(12, LONG_REPLY, ""), CLIENT);
        replyOf(later);
        assertThat(executions).as("not kept, so not known: executed again").hasValue(2);

        RpcDispatcher held = new RpcDispatcher(registry, new DuplicateRequestCacheLimits(16, 64, Duration.ofMinutes(2)),
                clock::get).register(RpcProgram.builder(PROG, 1).nonIdempotentProcedure(HELD, (ctx, args) -> {
                    CompletableFuture<XdrMessage> f = new CompletableFuture<>();
                    this.held.add(f);
                    return f;
                }).build());
        CompletableFuture<XdrMessage> running = send(held, call(13, HELD, ""), CLIENT);
        CompletableFuture<XdrMessage> waiting = send(held, call(13, HELD, ""), CLIENT);
        XdrEncoder results = XdrEncoder.create();
        for (int i = 0; i < 100; i++) {
            results.writeInt(i);
        }
        this.held.poll(5, TimeUnit.SECONDS).complete(results.toMessage());
        replyOf(running);
        Throwable dropped = waiting.handle((r, e) -> e).get(5, TimeUnit.SECONDS);
        assertThat(unwrap(dropped)).isInstanceOf(RpcDuplicateRequestException.class)
                .hasMessageContaining("not kept");
        assertThat(counted("dropped")).isEqualTo(1);
    }

    @Test
    void callsAreForgottenAfterTheirLifetimeAndBeyondTheEntries() throws Exception {
        RpcDispatcher d = dispatcher(2);
        replyOf(send(d, call(1, ADD_ONCE, "00000001 00000001"), CLIENT));
        clock.set(120 * SECOND - 1);
        replyOf(send(d, call(1, ADD_ONCE, "00000001 00000001"), CLIENT));
        assertThat(executions).hasValue(1);
        clock.set(120 * SECOND);
        replyOf(send(d, call(1, ADD_ONCE, "00000001 00000001"), CLIENT));
        assertThat(executions).as("two minutes on: forgotten").hasValue(2);
        replyOf(send(d, call(2, ADD_ONCE, "00000001 00000001"), CLIENT));
        replyOf(send(d, call(3, ADD_ONCE, "00000001 00000001"), CLIENT));
        replyOf(send(d, call(1, ADD_ONCE, "00000001 00000001"), CLIENT));
        assertThat(executions).as("two entries: xid 1 made room for xid 3").hasValue(5);
    }

    @Test
    void withTheCacheOffEveryTransmissionRuns() throws Exception {
        RpcDispatcher d = new RpcDispatcher(registry, DuplicateRequestCacheLimits.OFF).register(program());
        replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT));
        replyOf(send(d, call(7, ADD_ONCE, "00000002 00000003"), CLIENT));
        assertThat(executions).hasValue(2);
    }

    @Test
    void aCallWhoseTransportKnowsNoClientAddressIsNotCached() throws Exception {
        RpcDispatcher d = dispatcher(16);
        for (int i = 0; i < 2; i++) {
            XdrMessage reply = d.dispatch(XdrBytes.message(call(7, ADD_ONCE, "00000002 00000003")),
                    RpcTransportInfo.of("backchannel", null, null)).get(5, TimeUnit.SECONDS);
            reply.release();
        }
        assertThat(executions).hasValue(2);
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
