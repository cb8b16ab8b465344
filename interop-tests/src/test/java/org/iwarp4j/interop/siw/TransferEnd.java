package org.iwarp4j.interop.siw;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.ScatterGatherElement;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * Our end of iwarp_peer's transfers (siw-tools/iwarp_peer.c), on iwarp4j's verbs: the same
 * {@link Rendezvous} and {@link TransferPattern}, in either role. One queue pair with a data
 * region of the largest size (plus {@link TransferPattern#GUARD} zero octets unless told
 * otherwise), four posted receives each as large as that (a Send of any size lands in one),
 * and a 24-octet buffer for the rendezvous Sends, on an RNIC of its own. Connecting it is the
 * caller's business: {@link #queuePair()} to {@code connect}, or {@link #rnic()} to listen and
 * accept a request with it. Closing closes the RNIC, then frees the memory.
 */
final class TransferEnd implements AutoCloseable {

    static final int RECEIVES = 4;

    private final Rnic rnic;
    private final QueuePair queuePair;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    private final int maxSize;
    private final Duration timeout;
    private final ByteBuf data;
    private final ByteBuf receive;
    private final ByteBuf control;
    private final MemoryRegion dataMr;
    private final MemoryRegion receiveMr;
    private final MemoryRegion controlMr;
    private final boolean guarded;
    private long nextId = 100;

    /**
     * @param guarded {@code false} registers exactly {@code maxSize} data octets, so a peer's
     *     Write past an advertised {@code maxSize} is out of bounds (RFC 5041 §7.2)
     * @param timeout the longest wait for any one completion
     */
    TransferEnd(Rnic.Builder rnicBuilder, MpaSettings mpa, int maxSize, boolean guarded, Duration timeout) {
        this(rnicBuilder, mpa, maxSize, guarded, timeout, UnaryOperator.identity());
    }

    /** @param settings adjusts the queue pair's settings beyond those this class makes */
    TransferEnd(Rnic.Builder rnicBuilder, MpaSettings mpa, int maxSize, boolean guarded, Duration timeout,
            UnaryOperator<QueuePairSettings.Builder> settings) {
        this.rnic = rnicBuilder.eventLoopThreads(1).build();
        this.maxSize = maxSize;
        this.guarded = guarded;
        this.timeout = timeout;
        int dataLength = maxSize + (guarded ? TransferPattern.GUARD : 0);
        data = ByteBufAllocator.DEFAULT.directBuffer(dataLength).writeZero(dataLength);
        receive = ByteBufAllocator.DEFAULT.directBuffer(RECEIVES * maxSize).writeZero(RECEIVES * maxSize);
        control = ByteBufAllocator.DEFAULT.directBuffer(Rendezvous.LENGTH).writeZero(Rendezvous.LENGTH);
        ProtectionDomain pd = rnic.allocateProtectionDomain();
        dataMr = pd.register(data, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
        receiveMr = pd.register(receive, EnumSet.of(Access.LOCAL_WRITE));
        controlMr = pd.register(control, EnumSet.noneOf(Access.class));
        sendCq = rnic.createCompletionQueue(16);
        receiveCq = rnic.createCompletionQueue(16);
        queuePair = rnic.createQueuePair(settings.apply(QueuePairSettings.builder(pd, sendCq)
                .receiveCompletionQueue(receiveCq).sendQueueDepth(8).receiveQueueDepth(RECEIVES).mpa(mpa)).build());
        for (int slot = 0; slot < RECEIVES; slot++) {
            postReceive(slot);
        }
    }

    Rnic rnic() {
        return rnic;
    }

    QueuePair queuePair() {
        return queuePair;
    }

    /** The tagged offset a peer's Writes to our data region start at (what ADV advertises). */
    long writeBase() {
        return dataMr.baseTaggedOffset();
    }

    /**
     * As actor: every op of {@code ops} at every size of {@code sizes} on the target's memory,
     * then BYE. Returns the results in order; throws {@link TransferFailure} if a completion
     * fails or a message is not the one expected.
     */
    List<TransferResult> act(List<Rendezvous.Op> ops, List<Integer> sizes) throws InterruptedException {
        List<TransferResult> results = new ArrayList<>();
        for (Rendezvous.Op op : ops) {
            for (int size : sizes) {
                send(Rendezvous.request(op, size));
                Rendezvous adv = expect(Rendezvous.Type.ADV);
                if (adv.op() != op || adv.length() != size) {
                    throw new TransferFailure("ADV " + adv + " does not answer REQ " + op + " " + size);
                }
                switch (op) {
                    case WRITE -> {
                        TransferPattern.fill(data, 0, op, size);
                        complete(SendWorkRequest.rdmaWrite(nextId++, adv.stag(), adv.addr(), dataMr.sge(0, size)));
                        send(Rendezvous.done(op, size));
                        results.add(new TransferResult(op, size, expect(Rendezvous.Type.RESULT).status(), "target"));
                    }
                    case READ -> {
                        data.setZero(0, size);
                        complete(SendWorkRequest.rdmaRead(nextId++, adv.stag(), adv.addr(), dataMr.sge(0, size)));
                        int status = TransferPattern.check(data, 0, op, size, 0);
                        results.add(new TransferResult(op, size, status, "actor"));
                        send(Rendezvous.result(op, size, status));
                    }
                    case SEND -> {
                        TransferPattern.fill(data, 0, op, size);
                        complete(SendWorkRequest.send(nextId++, dataMr.sge(0, size)));
                        results.add(new TransferResult(op, size, expect(Rendezvous.Type.RESULT).status(), "target"));
                    }
                    default -> throw new IllegalArgumentException(op.toString());
                }
            }
        }
        send(Rendezvous.bye());
        return results;
    }

    /** As target: lends the data region for each REQ until BYE; returns the results in order. */
    List<TransferResult> serve() throws InterruptedException {
        List<TransferResult> results = new ArrayList<>();
        while (true) {
            Rendezvous req = expectAny();
            if (req.type() == Rendezvous.Type.BYE) {
                return results;
            }
            int size = req.length();
            if (req.type() != Rendezvous.Type.REQ || size < 1 || size > maxSize) {
                throw new TransferFailure("not a REQ of 1.." + maxSize + " octets: " + req);
            }
            Rendezvous.Op op = req.op();
            if (op == Rendezvous.Op.READ) {
                TransferPattern.fill(data, 0, op, size);
            } else {
                data.setZero(0, data.capacity());
            }
            send(Rendezvous.advertise(op, size, dataMr.baseTaggedOffset(), dataMr.stag()));
            switch (op) {
                case WRITE -> {
                    expect(Rendezvous.Type.DONE);
                    int status = TransferPattern.check(data, 0, op, size, guarded ? TransferPattern.GUARD : 0);
                    send(Rendezvous.result(op, size, status));
                    results.add(new TransferResult(op, size, status, "target"));
                }
                case READ -> results.add(new TransferResult(op, size, expect(Rendezvous.Type.RESULT).status(), "actor"));
                case SEND -> {
                    WorkCompletion received = nextReceive();
                    int slot = (int) received.workRequestId();
                    int status = received.byteLength() != size ? Math.min(received.byteLength(), size) + 1
                            : TransferPattern.check(receive, slot * maxSize, op, size, 0);
                    postReceive(slot);
                    send(Rendezvous.result(op, size, status));
                    results.add(new TransferResult(op, size, status, "target"));
                }
                default -> throw new TransferFailure("REQ for no op: " + req);
            }
        }
    }

    /** The first {@code length} octets of the data region, for work requests of the caller's own. */
    ScatterGatherElement data(int length) {
        return dataMr.sge(0, length);
    }

    /** Posts {@code request} and waits for its completion, which must be a success. */
    WorkCompletion complete(SendWorkRequest request) throws InterruptedException {
        queuePair.postSend(request);
        WorkCompletion completion = sendCq.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (completion == null) {
            throw new TransferFailure("no completion for " + request + " within " + timeout);
        }
        if (!completion.isSuccess()) {
            throw new TransferFailure(completion);
        }
        return completion;
    }

    /** The next completion of {@code cq} (send or receive), whatever its status; {@code null} after the timeout. */
    WorkCompletion poll(boolean send) throws InterruptedException {
        return (send ? sendCq : receiveCq).poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void send(Rendezvous message) throws InterruptedException {
        control.clear();
        message.encode(control);
        complete(SendWorkRequest.send(nextId++, controlMr.sge(0, Rendezvous.LENGTH)));
    }

    private Rendezvous expect(Rendezvous.Type type) throws InterruptedException {
        Rendezvous message = expectAny();
        if (message.type() != type) {
            throw new TransferFailure("expected " + type + ", received " + message);
        }
        return message;
    }

    /** The next message; its receive is posted again unless it is BYE (the peer may be gone by then). */
    private Rendezvous expectAny() throws InterruptedException {
        WorkCompletion received = nextReceive();
        int slot = (int) received.workRequestId();
        if (received.byteLength() != Rendezvous.LENGTH) {
            throw new TransferFailure("expected a rendezvous message, received " + received.byteLength() + " octets");
        }
        Rendezvous message = Rendezvous.decode(receive.slice(slot * maxSize, Rendezvous.LENGTH));
        if (message.type() != Rendezvous.Type.BYE) {
            postReceive(slot);
        }
        return message;
    }

    private WorkCompletion nextReceive() throws InterruptedException {
        WorkCompletion received = receiveCq.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (received == null) {
            throw new TransferFailure("nothing received within " + timeout + " (queue pair " + queuePair.state() + ")");
        }
        if (!received.isSuccess()) {
            throw new TransferFailure(received);
        }
        return received;
    }

    private void postReceive(int slot) {
        queuePair.postReceive(new ReceiveWorkRequest(slot, receiveMr.sge((long) slot * maxSize, maxSize)));
    }

    @Override
    public void close() {
        rnic.close();
        dataMr.close();
        receiveMr.close();
        controlMr.close();
        data.release();
        receive.release();
        control.release();
    }

    /** The exchange broke: a failed completion (kept, with its Terminate reason) or an unexpected message. */
    static final class TransferFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient WorkCompletion completion;

        TransferFailure(String message) {
            super(message);
            this.completion = null;
        }

        TransferFailure(WorkCompletion completion) {
            super("work request failed: " + completion);
            this.completion = completion;
        }
    }
}
