package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.iwarp4j.mpa.DirectPlacement;

/**
 * The untagged buffers of one queue number on one DDP stream (RFC 5041 §5.1.2, §5.3, §5.4, §7.1):
 * buffers are posted in order and the first one posted takes the queue's next MSN, the one after
 * it MSN + 1, and so on (mod 2^32); each untagged segment is placed by (QN, MSN, MO) into the
 * buffer of its MSN; a message is delivered when its L = 1 segment has been placed and every
 * earlier message of the queue was delivered (DDP-R-015, DDP-R-035, DDP-R-036), which gives the
 * buffer back to the {@code delivery} callback with the message length of DDP-R-037.
 *
 * <p><b>Checks</b> (§7.1, untagged checks 2-5; check 1, the QN, is the {@link DdpReceiver}'s):
 * with {@code d = MSN - (MSN of the oldest undelivered buffer)} mod 2^32 and {@code n} buffers
 * held, {@code d < n} names a buffer; {@code d == n} is the next message, for which no buffer is
 * posted: {@link DdpError#NO_BUFFER}; anything else (an already delivered MSN, or one further
 * ahead) is outside the legal MSN range: {@link DdpError#INVALID_MSN_RANGE}. Then an MO that is
 * not an offset inside the buffer is {@link DdpError#INVALID_MO}, and MO + payload length past the
 * buffer's end is {@link DdpError#MESSAGE_TOO_LONG}. A zero-length segment also needs its buffer
 * (a zero-length Send consumes one, RFC 5040 §5.3) and may have MO equal to the buffer length. On
 * any error nothing is written, except when a buffer's memory stops being a valid target while it
 * is posted ({@link ScatterEntry#guard()} refuses: {@link DdpError#LOCAL_CATASTROPHIC}): the pieces
 * of the scatter list before the refusing one may have been written.
 *
 * <p><b>Resources.</b> The queue holds at most {@code capacity} buffers and nothing else: a segment
 * can only act on a buffer that was posted, so the remote peer cannot make it grow.
 *
 * <p><b>Threads.</b> Not thread-safe: a queue belongs to its stream's event loop. The delivery
 * callback runs inside {@link #place}.
 */
public final class UntaggedQueue {

    private final int queueNumber;
    private final Slot[] ring;
    private final Consumer<UntaggedMessage> delivery;
    private int head;
    private int count;
    private int headMsn;

    /** A queue whose first buffer takes MSN 1 (§4.3, DDP-R-025). */
    public UntaggedQueue(int queueNumber, int capacity, Consumer<UntaggedMessage> delivery) {
        this(queueNumber, capacity, DdpConstants.INITIAL_MSN, delivery);
    }

    /**
     * A queue whose first buffer takes {@code firstMsn}: MSN 1 is the protocol's; other values are
     * for tests of the 2^32 wrap.
     *
     * @param capacity most buffers held at once, at least 1
     * @param delivery receives each delivered message, in MSN order
     */
    public UntaggedQueue(int queueNumber, int capacity, int firstMsn, Consumer<UntaggedMessage> delivery) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.queueNumber = queueNumber;
        this.ring = new Slot[capacity];
        this.delivery = Objects.requireNonNull(delivery, "delivery");
        this.headMsn = firstMsn;
    }

    /** The QN. */
    public int queueNumber() {
        return queueNumber;
    }

    /** Most buffers held at once. */
    public int capacity() {
        return ring.length;
    }

    /** Buffers posted and not yet delivered or flushed. */
    public int posted() {
        return count;
    }

    /** The MSN of the oldest undelivered buffer, which is the next message to be delivered. */
    public int nextMsn() {
        return headMsn;
    }

    /**
     * Posts a buffer; it takes MSN {@code nextMsn() + posted()}.
     *
     * @throws IllegalStateException if {@link #capacity()} buffers are held
     */
    public void post(ReceiveBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (count == ring.length) {
            throw new IllegalStateException("QN " + Integer.toUnsignedLong(queueNumber) + " already holds "
                    + ring.length + " buffers");
        }
        ring[(head + count) % ring.length] = new Slot(buffer);
        count++;
    }

    /**
     * Places a received untagged segment (see {@link #place(UntaggedHeader, ByteBuf)}); errors carry
     * the segment's header octets and length for the Terminate (DDP-R-049).
     *
     * @throws ClassCastException if the segment is tagged
     */
    public void place(DdpSegment segment) throws DdpException {
        placeWithoutDelivery(segment);
        deliverCompleted();
    }

    /** {@link #place(DdpSegment)} up to, not including, the delivery: the receiver counts in between. */
    void placeWithoutDelivery(DdpSegment segment) throws DdpException {
        try {
            placeWithoutDelivery(segment.untaggedHeader(), segment.payload());
        } catch (DdpException e) {
            throw e.withSegment(segment);
        }
    }

    /**
     * Places {@code payload}'s readable octets at the header's MO in the buffer of the header's MSN,
     * after the checks in the class comment, with one copy; delivers every message that became
     * deliverable. {@code payload} keeps its indexes and reference count.
     *
     * @throws DdpException on a failed check (nothing written, nothing delivered), on a header
     *     whose QN is not this queue's ({@link DdpError#INVALID_QN}), or with
     *     {@link DdpError#LOCAL_CATASTROPHIC} if a posted buffer's memory is no longer usable
     */
    public void place(UntaggedHeader header, ByteBuf payload) throws DdpException {
        placeWithoutDelivery(header, payload);
        deliverCompleted();
    }

    private void placeWithoutDelivery(UntaggedHeader header, ByteBuf payload) throws DdpException {
        if (header.qn() != queueNumber) {
            throw new DdpException(DdpError.INVALID_QN, "segment for QN " + Integer.toUnsignedLong(header.qn())
                    + " given to QN " + Integer.toUnsignedLong(queueNumber));
        }
        long d = Integer.toUnsignedLong(header.msn() - headMsn);
        if (d >= count) {
            String msn = "MSN " + Integer.toUnsignedLong(header.msn()) + " on QN " + Integer.toUnsignedLong(queueNumber);
            if (d == count) {
                throw new DdpException(DdpError.NO_BUFFER, msn + ": no buffer posted for it");
            }
            throw new DdpException(DdpError.INVALID_MSN_RANGE, msn + ": outside the legal range "
                    + Integer.toUnsignedLong(headMsn) + ".." + Integer.toUnsignedLong(headMsn + count)
                    + " (first buffer .. one past the last)");
        }
        Slot slot = ring[(head + (int) d) % ring.length];
        long size = slot.buffer.length();
        long mo = Integer.toUnsignedLong(header.mo());
        int length = payload.readableBytes();
        if (length > 0 ? mo >= size : mo > size) {
            throw new DdpException(DdpError.INVALID_MO, "MO " + mo + " is not an offset in the " + size
                    + "-octet buffer of MSN " + Integer.toUnsignedLong(header.msn()));
        }
        if (mo + length > size) {
            throw new DdpException(DdpError.MESSAGE_TOO_LONG, "MO " + mo + " + " + length
                    + " payload octets is past the end of the " + size + "-octet buffer of MSN "
                    + Integer.toUnsignedLong(header.msn()));
        }
        if (length > 0) {
            boolean written;
            try {
                written = slot.buffer.write(mo, payload, payload.readerIndex(), length);
            } catch (IndexOutOfBoundsException | IllegalReferenceCountException e) {
                DdpException failure = new DdpException(DdpError.LOCAL_CATASTROPHIC,
                        "a posted buffer of QN " + Integer.toUnsignedLong(queueNumber) + " is no longer usable: "
                                + e.getMessage());
                failure.initCause(e);
                throw failure;
            }
            if (!written) {
                // Its region was deregistered or invalidated since it was posted (the guard refused).
                throw new DdpException(DdpError.LOCAL_CATASTROPHIC, "the memory of the buffer posted for MSN "
                        + Integer.toUnsignedLong(header.msn()) + " on QN " + Integer.toUnsignedLong(queueNumber)
                        + " is no longer a valid target (deregistered or invalidated)");
            }
        }
        if (!slot.started) {
            slot.started = true;
            slot.rsvdUlp = header.rsvdUlp();
            slot.rsvdUlpWord = header.rsvdUlpWord();
        }
        if (header.last() && !slot.complete) {
            slot.complete = true;
            slot.messageLength = mo + length;
        }
    }

    /**
     * Where the payload of an untagged segment with {@code header} and {@code length} payload
     * octets would be placed, if it is one contiguous piece of a posted buffer: a retained slice of
     * exactly those octets, for MPA's direct placement; {@code null} if the segment would fail a
     * check or spans pieces of the scatter list. Changes nothing: the segment is placed (and
     * checked again) by {@link #place} when it is complete.
     */
    public ByteBuf placementTarget(UntaggedHeader header, int length) {
        DirectPlacement placement = directPlacement(header, 0, length);
        return placement == null ? null : placement.target();
    }

    /**
     * {@link #placementTarget} as MPA's direct placement of a ULPDU whose header is {@code
     * headerLength} octets, with the guard of the piece of the scatter list the payload lies in
     * ({@link ScatterEntry#guard()}): a socket read into memory whose region is deregistered
     * meanwhile stops as it does for tagged memory. {@code null} where placementTarget is.
     */
    public DirectPlacement directPlacement(UntaggedHeader header, int headerLength, int length) {
        if (header.qn() != queueNumber || length <= 0) {
            return null;
        }
        long d = Integer.toUnsignedLong(header.msn() - headMsn);
        if (d >= count) {
            return null;
        }
        ReceiveBuffer buffer = ring[(head + (int) d) % ring.length].buffer;
        long mo = Integer.toUnsignedLong(header.mo());
        if (mo + length > buffer.length()) {
            return null;
        }
        for (ScatterEntry e : buffer.scatterList()) {
            if (mo >= e.length()) {
                mo -= e.length();
                continue;
            }
            if (mo + length > e.length()) {
                return null;
            }
            ByteBuf target;
            try {
                target = e.buffer().retainedSlice(e.index() + (int) mo, length);
            } catch (IndexOutOfBoundsException | IllegalReferenceCountException ex) {
                return null; // the ordinary path reports it
            }
            return DirectPlacement.of(headerLength, target, e.guard());
        }
        return null;
    }

    /**
     * Removes every buffer held, delivered or not, in MSN order, for the ULP to complete in error
     * (RFC 5041 §6.2.2: outstanding requests are completed with an error). The queue's next MSN
     * moves past them.
     */
    public List<ReceiveBuffer> flush() {
        List<ReceiveBuffer> out = new ArrayList<>(count);
        while (count > 0) {
            out.add(ring[head].buffer);
            pop();
        }
        return out;
    }

    /** Delivers every message at the head of the queue whose last segment has been placed, in MSN order. */
    void deliverCompleted() {
        while (count > 0 && ring[head].complete) {
            Slot slot = ring[head];
            int msn = headMsn;
            pop();
            delivery.accept(new UntaggedMessage(slot.buffer, queueNumber, msn, slot.messageLength, slot.rsvdUlp,
                    slot.rsvdUlpWord));
        }
    }

    private void pop() {
        ring[head] = null;
        head = (head + 1) % ring.length;
        count--;
        headMsn++;
    }

    /** A posted buffer and what has been received for its message. */
    private static final class Slot {
        final ReceiveBuffer buffer;
        boolean started;
        boolean complete;
        long messageLength;
        int rsvdUlp;
        int rsvdUlpWord;

        Slot(ReceiveBuffer buffer) {
            this.buffer = buffer;
        }
    }

    @Override
    public String toString() {
        return "UntaggedQueue[QN " + Integer.toUnsignedLong(queueNumber) + ", next MSN "
                + Integer.toUnsignedLong(headMsn) + ", " + count + "/" + ring.length + " buffers]";
    }
}
