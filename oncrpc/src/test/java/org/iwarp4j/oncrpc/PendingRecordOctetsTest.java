package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.oncrpc.TcpTransportTest.PROG;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.iwarp4j.oncrpc.internal.AssemblyBudget;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The octets of call records not yet started, on all connections of an RPC/TCP server together
 * ({@link RpcTcpServer.Builder#maxPendingRecordOctets}): a record longer than 64 KiB reserves its
 * octets when its record mark announces them and keeps them until its call starts, so records
 * being reassembled and records waiting for the server's budget of calls are bounded together,
 * not one of {@code maxRecordSize} per connection. The connections run in EmbeddedChannels with
 * the server's decoder and handler.
 */
class PendingRecordOctetsTest {

    private static final int BIG = 200 * 1024;

    private final List<CompletableFuture<XdrMessage>> pending = new ArrayList<>();
    private final List<Integer> argumentLengths = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
            .procedure(1, (ctx, args) -> {
                argumentLengths.add(args.readOpaque(1 << 20).length);
                CompletableFuture<XdrMessage> later = new CompletableFuture<>();
                pending.add(later);
                return later;
            })
            .build());

    /** Reads asked of each connection's socket (by the handlers after this one). */
    private final java.util.Map<EmbeddedChannel, java.util.concurrent.atomic.AtomicInteger> reads =
            new java.util.HashMap<>();

    private EmbeddedChannel connection(ServerCallBudget calls, AssemblyBudget records) {
        return connection(new EmbeddedChannel(), calls, records);
    }

    private EmbeddedChannel connection(EmbeddedChannel ch, ServerCallBudget calls, AssemblyBudget records) {
        java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();
        ch.pipeline().addLast(new io.netty.channel.ChannelOutboundHandlerAdapter() {
            @Override
            public void read(io.netty.channel.ChannelHandlerContext ctx) {
                count.incrementAndGet();
                ctx.read();
            }
        });
        RpcTcpServer.addConnectionHandlers(ch, dispatcher, 1 << 20, calls, records);
        channels.add(ch);
        reads.put(ch, count);
        return ch;
    }

    /** A call record of one fragment with an opaque argument of {@code length} octets, record mark first. */
    private static ByteBuf call(int xid, int length) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(0).writeInt(xid).writeInt(0).writeInt(2).writeInt(PROG).writeInt(1).writeInt(1)
                .writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        b.writeInt(length).writeZero(length + ((4 - length % 4) % 4));
        b.setInt(0, RpcConstants.LAST_FRAGMENT | (b.readableBytes() - 4));
        return b;
    }

    @AfterEach
    void tearDown() {
        pending.forEach(f -> f.complete(XdrEncoder.create().toMessage()));
        channels.forEach(ch -> {
            ch.runPendingTasks();
            ch.finishAndReleaseAll();
        });
    }

    @Test
    void recordsNotYetStartedShareTheServersOctetsAndWaitInTurn() {
        ServerCallBudget calls = new ServerCallBudget(1, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(300 * 1024);
        EmbeddedChannel a = connection(calls, records);
        EmbeddedChannel b = connection(calls, records);
        EmbeddedChannel c = connection(calls, records);

        a.writeInbound(call(1, 100)); // small: reserves nothing, and takes the one place in service
        assertThat(pending).hasSize(1);
        assertThat(records.held()).isZero();

        b.writeInbound(call(2, BIG)); // decoded whole, waits for the place in service: still counted
        assertThat(pending).hasSize(1);
        long bOctets = records.held();
        assertThat(bOctets).isGreaterThan(BIG);

        ByteBuf cCall = call(3, BIG);
        int cRecord = cCall.readableBytes() - 4;
        int readsBefore = reads.get(c).get();
        c.writeInbound(cCall.readRetainedSlice(1000)); // its mark announces more than is left
        assertThat(records.waiting()).as("c's reservation waits").isEqualTo(1);
        assertThat(c.config().isAutoRead()).as("c is not read meanwhile").isFalse();
        // Not even the read a decoder that decoded nothing asks for itself.
        assertThat(reads.get(c).get()).as("reads asked of c's socket").isEqualTo(readsBefore);
        assertThat(records.held()).isEqualTo(bOctets);

        pending.get(0).complete(XdrEncoder.create().toMessage()); // a's call ends: b's starts
        a.runPendingTasks();
        b.runPendingTasks();
        assertThat(argumentLengths).containsExactly(100, BIG);
        c.runPendingTasks(); // the grant reaches c on its event loop
        assertThat(records.waiting()).isZero();
        assertThat(c.config().isAutoRead()).isTrue();
        assertThat(reads.get(c).get()).as("read again").isGreaterThan(readsBefore);
        assertThat(records.held()).as("b's given back, c's reserved").isEqualTo(cRecord);

        c.writeInbound(cCall); // the rest
        assertThat(argumentLengths).as("c waits for the place in service").hasSize(2);
        pending.get(1).complete(XdrEncoder.create().toMessage());
        b.runPendingTasks();
        c.runPendingTasks();
        assertThat(argumentLengths).containsExactly(100, BIG, BIG);
        assertThat(records.held()).as("every call started").isZero();
    }

    @Test
    void aClosedConnectionGivesItsReservationsBack() {
        ServerCallBudget calls = new ServerCallBudget(1, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(300 * 1024);
        EmbeddedChannel a = connection(calls, records);
        EmbeddedChannel b = connection(calls, records);
        ByteBuf aCall = call(1, BIG);
        a.writeInbound(aCall.readRetainedSlice(1000));
        aCall.release();
        assertThat(records.held()).isGreaterThan(BIG);
        ByteBuf bCall = call(2, BIG);
        int bRecord = bCall.readableBytes() - 4;
        b.writeInbound(bCall.readRetainedSlice(1000));
        assertThat(records.waiting()).isEqualTo(1);

        a.close();
        b.runPendingTasks();
        assertThat(records.waiting()).isZero();
        assertThat(records.held()).as("a's partial record given back, b's reserved").isEqualTo(bRecord);
        b.close();
        bCall.release();
        assertThat(records.held()).isZero();
    }
    /**
     * One client address holds no more record octets than its share, on all its connections
     * together: its next record waits (its connection not read) while another client's record is
     * reserved past it, and it is granted when its client's octets are given back. Without the
     * share one host announcing large records on many connections held the whole server's octets.
     */
    @Test
    void oneClientsRecordsHoldNoMoreThanItsShareAndHoldUpNoOtherClient() throws Exception {
        ServerCallBudget calls = new ServerCallBudget(4, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(1 << 20, 300 * 1024);
        EmbeddedChannel a1 = connection(new ChannelFromAddress(new java.net.InetSocketAddress("192.0.2.1", 40001)),
                calls, records);
        EmbeddedChannel a2 = connection(new ChannelFromAddress(new java.net.InetSocketAddress("192.0.2.1", 40002)),
                calls, records);
        EmbeddedChannel b = connection(new ChannelFromAddress(new java.net.InetSocketAddress("192.0.2.2", 40003)),
                calls, records);
        ByteBuf a1Call = call(1, BIG);
        ByteBuf a2Call = call(2, BIG);
        ByteBuf bCall = call(3, BIG);
        int record = a1Call.readableBytes() - 4;
        a1.writeInbound(a1Call.readRetainedSlice(1000));
        a2.writeInbound(a2Call.readRetainedSlice(1000));
        java.net.InetAddress a = java.net.InetAddress.getByName("192.0.2.1");
        assertThat(records.held(a)).as("two records would pass the client's share").isEqualTo(record);
        assertThat(records.waiting()).isEqualTo(1);
        assertThat(a2.config().isAutoRead()).as("the client's second connection is not read").isFalse();

        b.writeInbound(bCall.readRetainedSlice(1000));
        assertThat(records.waiting()).as("another client's record is reserved past it").isEqualTo(1);
        assertThat(records.held()).isEqualTo(2L * record);

        a1.writeInbound(a1Call); // a1's call starts: its octets go back and a2's are granted
        a2.runPendingTasks();
        assertThat(records.waiting()).isZero();
        assertThat(a2.config().isAutoRead()).isTrue();
        assertThat(records.held(a)).isEqualTo(record);
        a2.writeInbound(a2Call);
        b.writeInbound(bCall);
        assertThat(argumentLengths).containsExactly(BIG, BIG, BIG);
        assertThat(records.held()).isZero();

        ByteBuf partial = call(4, BIG);
        a1.writeInbound(partial.readRetainedSlice(1000));
        partial.release();
        assertThat(records.held(a)).isGreaterThan(BIG);
        a1.close(); // mid-record: the client's count goes back to nothing
        assertThat(records.held(a)).isZero();
        assertThat(records.held()).isZero();
    }

    /** The maximum record size the connections of these tests have (addConnectionHandlers). */
    private static final int MAX_RECORD = 1 << 20;

    /** {@code whole}, a record without its mark, as two fragments: the first of {@code firstLength} octets. */
    private static ByteBuf twoFragments(ByteBuf whole, int firstLength) {
        ByteBuf fragments = Unpooled.buffer();
        fragments.writeInt(firstLength).writeBytes(whole, firstLength);
        fragments.writeInt(RpcConstants.LAST_FRAGMENT | whole.readableBytes()).writeBytes(whole);
        whole.release();
        return fragments;
    }

    /**
     * A record of two fragments reserves, when its first fragment passes 64 KiB, all it may grow
     * to (the maximum record size), so its second fragment never waits: records holding part of
     * their octets cannot wait on each other. What it did not use goes back when it completes; the
     * reservation of another connection that waits is granted once the record started.
     */
    @Test
    void aRecordOfSeveralFragmentsReservesAllItMayGrowToAndItsLaterFragmentsNeverWait() {
        ServerCallBudget calls = new ServerCallBudget(4, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(MAX_RECORD);
        EmbeddedChannel a = connection(calls, records);
        EmbeddedChannel b = connection(calls, records);
        ByteBuf whole = call(1, 2 * BIG);
        whole.skipBytes(4); // the record without its mark, cut in two fragments
        int firstLength = whole.readableBytes() / 2;
        int recordLength = whole.readableBytes();
        ByteBuf fragments = twoFragments(whole, firstLength);

        a.writeInbound(fragments.readRetainedSlice(1000)); // the first fragment: all the record may grow to
        assertThat(records.held()).isEqualTo(MAX_RECORD);
        ByteBuf bCall = call(2, BIG);
        b.writeInbound(bCall.readRetainedSlice(1000));
        assertThat(records.waiting()).as("b waits").isEqualTo(1);

        a.writeInbound(fragments.readRetainedSlice(firstLength + 4 - 1000 + 4 + 1000)); // on into the second
        assertThat(records.waiting()).as("a's second fragment did not queue behind b").isEqualTo(1);
        assertThat(records.held()).isEqualTo(MAX_RECORD);
        a.writeInbound(fragments); // the rest: the call starts, its octets go back, b's are granted
        assertThat(argumentLengths).containsExactly(2 * BIG);
        b.runPendingTasks();
        assertThat(records.waiting()).isZero();
        assertThat(records.held()).isEqualTo(bCall.readableBytes() + 1000 - 4);
        b.writeInbound(bCall);
        assertThat(argumentLengths).containsExactly(2 * BIG, BIG);
        assertThat(records.held()).isZero();
        assertThat(recordLength).isLessThan(MAX_RECORD);
    }

    /**
     * A record completed below what it reserved gives the rest back at once, before its call
     * starts: a record decoded whole and waiting for the server's budget of calls counts its own
     * length only.
     */
    @Test
    void aCompletedRecordKeepsOnlyItsOwnLength() {
        ServerCallBudget calls = new ServerCallBudget(1, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(4 * MAX_RECORD);
        EmbeddedChannel a = connection(calls, records);
        EmbeddedChannel b = connection(calls, records);
        a.writeInbound(call(1, 100)); // takes the one place in service
        ByteBuf whole = call(2, BIG);
        whole.skipBytes(4);
        int recordLength = whole.readableBytes();
        b.writeInbound(twoFragments(whole, 70 * 1024));
        assertThat(argumentLengths).as("b's call waits for the place in service").containsExactly(100);
        assertThat(records.held()).isEqualTo(recordLength);
    }

    /**
     * A first fragment just over 64 KiB and a second that announces far more: the second reserves
     * nothing more and counts against both bounds from the first. It used to count its octets
     * without waiting, so one client with a few connections passed its share and the server's
     * bound (a review of the per-client share found it).
     */
    @Test
    void aLaterFragmentCannotPassTheBounds() throws Exception {
        ServerCallBudget calls = new ServerCallBudget(4, Long.MAX_VALUE);
        AssemblyBudget records = new AssemblyBudget(2 * MAX_RECORD, 300 * 1024);
        java.net.InetAddress client = java.net.InetAddress.getByName("192.0.2.1");
        EmbeddedChannel[] c = new EmbeddedChannel[3];
        for (int i = 0; i < c.length; i++) {
            c[i] = connection(new ChannelFromAddress(new java.net.InetSocketAddress(client, 40001 + i)), calls, records);
            ByteBuf first = Unpooled.buffer();
            first.writeInt(65 * 1024).writeZero(65 * 1024); // not the last fragment
            first.writeInt(RpcConstants.LAST_FRAGMENT | (MAX_RECORD - 66 * 1024)).writeZero(1000);
            c[i].writeInbound(first);
        }
        assertThat(records.held(client)).as("one record of the client, all it may grow to").isEqualTo(MAX_RECORD);
        assertThat(records.waiting()).as("the client's other connections wait").isEqualTo(2);
        assertThat(c[1].config().isAutoRead()).isFalse();
        assertThat(c[2].config().isAutoRead()).isFalse();
        assertThat(records.held()).isEqualTo(MAX_RECORD);
    }
}
