package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;

/**
 * An RPC-over-RDMA peer written with the verbs API alone, for tests that need to put exact octets
 * on the wire: a Requester that sends hand-made Calls to our Responder, or a Responder that answers
 * our Requester with hand-made Replies. Sends and Receives are polled, never handled by rpcrdma.
 */
final class RawPeer implements AutoCloseable {

    static final int RECEIVE_SIZE = 4096;
    private static final int RECEIVES = 16;

    final Rnic rnic;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue receiveCq;
    final QueuePair qp;
    final ByteBuf receiveMemory = Unpooled.directBuffer(RECEIVE_SIZE * RECEIVES).writeZero(RECEIVE_SIZE * RECEIVES);
    final MemoryRegion receiveRegion;
    private Listener listener;
    private long nextId = 100;

    private RawPeer(Rnic rnic, byte[] privateData) {
        this.rnic = rnic;
        this.pd = rnic.allocateProtectionDomain();
        this.sendCq = rnic.createCompletionQueue(256);
        this.receiveCq = rnic.createCompletionQueue(256);
        this.qp = rnic.createQueuePair(QueuePairSettings.builder(pd, sendCq).receiveCompletionQueue(receiveCq)
                .receiveQueueDepth(RECEIVES).mpa(MpaSettings.builder().privateData(privateData).build()).build());
        this.receiveRegion = pd.register(receiveMemory, EnumSet.of(Access.LOCAL_WRITE));
        for (int i = 0; i < RECEIVES; i++) {
            postReceive(i);
        }
    }

    /** A Requester connected to {@code server}, announcing {@code privateData} (maybe an RFC 8797 block). */
    static RawPeer requester(Rnic rnic, SocketAddress server, byte[] privateData) throws Exception {
        RawPeer peer = new RawPeer(rnic, privateData);
        peer.qp.connect(server).get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        return peer;
    }

    /** A Requester with 4 KiB inline sizes and remote invalidation. */
    static RawPeer requester(Rnic rnic, SocketAddress server) throws Exception {
        return requester(rnic, server, RpcRdmaPrivateData.of(true, 4096, 4096).encode());
    }

    /** A Responder listening on loopback; {@link #accepted()} completes when a Requester connected. */
    static RawPeer responder(Rnic rnic, byte[] privateData) throws InterruptedException {
        RawPeer peer = new RawPeer(rnic, privateData);
        peer.listener = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                request -> request.accept(peer.qp, privateData));
        return peer;
    }

    SocketAddress address() {
        return listener.localAddress();
    }

    /**
     * A Responder listening on loopback that accepts every connection, each with a peer of its own;
     * with {@code closeAtOnce} it closes each as soon as it is established, as a hostile server may.
     */
    static Listening listening(Rnic rnic, byte[] privateData, boolean closeAtOnce) throws InterruptedException {
        return new Listening(rnic, privateData, closeAtOnce);
    }

    /** The connections a {@link #listening} Responder accepted, in order. */
    static final class Listening implements AutoCloseable {
        private final Listener listener;
        private final LinkedBlockingQueue<RawPeer> accepted = new LinkedBlockingQueue<>();
        private final List<RawPeer> all = new CopyOnWriteArrayList<>();

        private Listening(Rnic rnic, byte[] privateData, boolean closeAtOnce) throws InterruptedException {
            listener = rnic.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(), request -> {
                RawPeer peer = new RawPeer(rnic, privateData);
                all.add(peer);
                accepted.add(peer);
                if (closeAtOnce) {
                    peer.qp.established().thenRun(peer.qp::close);
                }
                return request.accept(peer.qp, privateData);
            });
        }

        SocketAddress address() {
            return listener.localAddress();
        }

        /** Connections accepted so far. */
        int count() {
            return all.size();
        }

        /** The next connection accepted, once established; fails the test if none comes. */
        RawPeer next() throws Exception {
            RawPeer peer = accepted.poll(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            if (peer == null) {
                throw new AssertionError("no connection accepted");
            }
            peer.accepted().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            return peer;
        }

        @Override
        public void close() {
            listener.close();
            all.forEach(RawPeer::close);
        }
    }

    CompletableFuture<QueuePair> accepted() {
        return qp.established();
    }

    private void postReceive(int slot) {
        qp.postReceive(new ReceiveWorkRequest(slot, receiveRegion.sge((long) slot * RECEIVE_SIZE, RECEIVE_SIZE)));
    }

    /** Sends {@code octets} with plain Send and waits for its completion. */
    void send(byte[] octets) throws Exception {
        ByteBuf b = Unpooled.directBuffer(octets.length).writeBytes(octets);
        try (MemoryRegion r = pd.register(b, EnumSet.noneOf(Access.class))) {
            long id = nextId++;
            qp.postSend(SendWorkRequest.send(id, r.sge()));
            WorkCompletion c = sendCq.poll(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            if (c == null || !c.isSuccess()) {
                throw new AssertionError("send failed: " + c);
            }
        } finally {
            b.release();
        }
    }

    /** RDMA Writes {@code octets} to {@code stag} at tagged offset {@code offset} and waits for its completion. */
    void write(byte[] octets, int stag, long offset) throws Exception {
        ByteBuf b = Unpooled.directBuffer(octets.length).writeBytes(octets);
        try (MemoryRegion r = pd.register(b, EnumSet.noneOf(Access.class))) {
            qp.postSend(SendWorkRequest.rdmaWrite(nextId++, stag, offset, r.sge()));
            WorkCompletion c = sendCq.poll(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            if (c == null || !c.isSuccess()) {
                throw new AssertionError("RDMA Write failed: " + c);
            }
        } finally {
            b.release();
        }
    }

    /** Sends {@code octets} with Send with Invalidate of {@code stag}. */
    void sendWithInvalidate(byte[] octets, int stag) throws Exception {
        ByteBuf b = Unpooled.directBuffer(octets.length).writeBytes(octets);
        try (MemoryRegion r = pd.register(b, EnumSet.noneOf(Access.class))) {
            qp.postSend(SendWorkRequest.sendWithInvalidate(nextId++, stag, r.sge()));
            WorkCompletion c = sendCq.poll(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            if (c == null || !c.isSuccess()) {
                throw new AssertionError("send failed: " + c);
            }
        } finally {
            b.release();
        }
    }

    /** The next received message's octets, or {@code null} if none came within {@code seconds}. */
    byte[] receive(long seconds) throws InterruptedException {
        WorkCompletion c = receiveCq.poll(seconds, TimeUnit.SECONDS);
        if (c == null) {
            return null;
        }
        if (c.opcode() != WorkCompletionOpcode.RECEIVE || !c.isSuccess()) {
            throw new AssertionError("unexpected completion " + c);
        }
        int slot = (int) c.workRequestId();
        byte[] out = ByteBufUtil.getBytes(receiveMemory, slot * RECEIVE_SIZE, c.byteLength());
        postReceive(slot);
        return out;
    }

    /** The next received message; fails the test if none comes. */
    byte[] receive() throws InterruptedException {
        byte[] m = receive(RpcRdmaPair.WAIT_SECONDS);
        if (m == null) {
            throw new AssertionError("nothing received");
        }
        return m;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        qp.close();
        try {
            qp.closeFuture().get(RpcRdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            receiveRegion.close();
            receiveMemory.release();
        }
    }
}
