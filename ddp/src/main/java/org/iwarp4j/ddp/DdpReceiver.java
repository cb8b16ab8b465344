package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The Data Sink side of one DDP stream: decodes each ULPDU the LLP delivers, places tagged
 * segments through the RNIC's {@link StagTable} and untagged segments into this stream's
 * {@link UntaggedQueue}s, and enforces RFC 5041 §7.1's rule for errors: the first error is
 * reported (thrown, with the offending segment's header and length when known, DDP-R-049) and
 * every later segment is dropped silently, placing nothing (DDP-R-049). The outbound half is not
 * affected, so the ULP can still send its Terminate (DDP-R-044); DDP never closes the stream
 * itself (DDP-R-039). A header field DDP finds invalid (the version, an unknown QN, an STag or
 * offset its checks refuse) is always such a fatal error handed to the ULP, never skipped: the
 * ULP cannot trust anything the stream carries after it (DDP-R-043; the LLP's own failures reach
 * the ULP through the channel, see RDMAP's queue pair engine).
 *
 * <p>The ULP (RDMAP) looks at each decoded segment's RsvdULP octet before choosing how to place it
 * (which access right a tagged segment needs; whether it is a valid opcode at all), so decoding and
 * placing are separate calls. After an error of its own (an RDMAP error), the ULP calls
 * {@link #stop()} so that DDP places nothing more either (RFC 5040 §6.2.1, RDMAP-R-035).
 *
 * <p><b>Threads.</b> Not thread-safe: one receiver per stream, used on that stream's event loop.
 * Only the {@link StagTable} is shared.
 */
public final class DdpReceiver {

    private final StagTable stagTable;
    private final int protectionDomain;
    private final long streamId;
    private final Map<Integer, UntaggedQueue> queues = new HashMap<>();
    private final DdpMeters meters;
    private boolean stopped;
    private DdpException failure;

    /**
     * @param stagTable the RNIC's STag table
     * @param protectionDomain the stream's protection domain (RFC 5041 §8.2)
     * @param streamId the stream's id for stream-scoped buffers ({@link StagTable#newStreamId()})
     * @param queues the valid QNs of this stream with their queues (RDMAP: QN 0, 1 and 2); a
     *     segment for any other QN is {@link DdpError#INVALID_QN}
     */
    public DdpReceiver(StagTable stagTable, int protectionDomain, long streamId, Collection<UntaggedQueue> queues) {
        this(stagTable, protectionDomain, streamId, queues, DdpMeters.NONE);
    }

    /**
     * A receiver that counts the octets it places in {@code meters} ({@link DdpMeters}); the other
     * parameters as {@link #DdpReceiver(StagTable, int, long, Collection)}.
     */
    public DdpReceiver(StagTable stagTable, int protectionDomain, long streamId, Collection<UntaggedQueue> queues,
                       DdpMeters meters) {
        this.meters = Objects.requireNonNull(meters, "meters");
        this.stagTable = Objects.requireNonNull(stagTable, "stagTable");
        this.protectionDomain = protectionDomain;
        this.streamId = streamId;
        for (UntaggedQueue q : queues) {
            if (this.queues.put(q.queueNumber(), q) != null) {
                throw new IllegalArgumentException("two queues for QN " + Integer.toUnsignedLong(q.queueNumber()));
            }
        }
    }

    /**
     * Whether a payload that MPA's direct placement already read into its target is recognised
     * here as being in place, so that its copy is skipped. That needs the memory address of a
     * direct buffer: Netty's {@code Unsafe} access, or from Java 22 on the JDK's memory segments.
     * Where neither is available, a ULP must not place directly: every payload is copied.
     */
    public static boolean recognisesDirectlyPlacedPayloads() {
        return BufferAddress.KNOWN;
    }

    /** The RNIC's STag table. */
    public StagTable stagTable() {
        return stagTable;
    }

    /** The stream's protection domain. */
    public int protectionDomain() {
        return protectionDomain;
    }

    /** The stream's id. */
    public long streamId() {
        return streamId;
    }

    /** The queue of {@code queueNumber}, or {@code null} if that QN is not valid on this stream. */
    public UntaggedQueue queue(int queueNumber) {
        return queues.get(queueNumber);
    }

    /**
     * Decodes a ULPDU (see {@link DdpSegment#decode}). {@code ulpdu} is not released here. Returns
     * {@code null}, decoding nothing, once the receiver has stopped.
     *
     * @throws DdpException for an invalid DDP version; the receiver stops
     */
    public DdpSegment decode(ByteBuf ulpdu) throws DdpException {
        if (stopped) {
            return null;
        }
        try {
            return DdpSegment.decode(ulpdu);
        } catch (DdpException e) {
            throw fail(e);
        }
    }

    /**
     * Places a tagged segment (RFC 5041 §7.1 tagged checks, via
     * {@link StagTable#place(DdpSegment, int, long, Access)}). The segment stays the caller's to
     * release. A zero-length segment is accepted without looking at its STag or TO (DDP-R-031).
     *
     * @param required {@link Access#REMOTE_WRITE} for an RDMA Write, {@link Access#LOCAL_WRITE} for a
     *     Read Response
     * @return {@code true} if placed, {@code false} if dropped because the receiver has stopped
     * @throws DdpException on the first error, with the segment attached; the receiver stops
     * @throws ClassCastException if the segment is untagged (a caller bug, not a protocol error)
     */
    public boolean placeTagged(DdpSegment segment, Access required) throws DdpException {
        return placeTagged(segment, required, streamId);
    }

    /**
     * Places a tagged segment whose STag and TO the ULP named itself and has matched with what it
     * asked for: RDMAP's Read Response, into the Data Sink of its outstanding Read Request
     * (RFC 5040 §5.2.2, RDMAP-R-018). As {@link #placeTagged(DdpSegment, Access)}, except that the
     * buffer's association is checked against the stream's protection domain only ({@link
     * StagTable#LOCAL_REQUEST}): the sink may be bound to another stream of the domain.
     */
    public boolean placeRequestedTagged(DdpSegment segment, Access required) throws DdpException {
        return placeTagged(segment, required, StagTable.LOCAL_REQUEST);
    }

    private boolean placeTagged(DdpSegment segment, Access required, long callerStream) throws DdpException {
        if (stopped) {
            return false;
        }
        try {
            stagTable.place(segment, protectionDomain, callerStream, required);
            meters.placed(true, segment.payloadLength());
            return true;
        } catch (DdpException e) {
            throw fail(e);
        }
    }

    /**
     * Places an untagged segment into the queue of its QN (RFC 5041 §7.1 untagged checks); a
     * message it completes is delivered through that queue's callback before this returns. The
     * segment stays the caller's to release.
     *
     * @return {@code true} if placed, {@code false} if dropped because the receiver has stopped
     * @throws DdpException on the first error ({@link DdpError#INVALID_QN} for a QN without a queue),
     *     with the segment attached; the receiver stops
     * @throws ClassCastException if the segment is tagged (a caller bug, not a protocol error)
     */
    public boolean placeUntagged(DdpSegment segment) throws DdpException {
        if (stopped) {
            return false;
        }
        UntaggedHeader header = segment.untaggedHeader();
        UntaggedQueue queue = queue(header.qn());
        try {
            if (queue == null) {
                throw segment.error(DdpError.INVALID_QN, "QN " + Integer.toUnsignedLong(header.qn())
                        + " is not valid on this stream");
            }
            queue.placeWithoutDelivery(segment);
        } catch (DdpException e) {
            throw fail(e);
        }
        // Counted before the ULP hears of a message it completes.
        meters.placed(false, segment.payloadLength());
        queue.deliverCompleted();
        return true;
    }

    /** Stops placement for good: every later segment is dropped (RDMAP-R-035). */
    public void stop() {
        stopped = true;
    }

    /** Whether the receiver has stopped, after an error or {@link #stop()}. */
    public boolean isStopped() {
        return stopped;
    }

    /** The first DDP error this receiver reported, or {@code null}. */
    public DdpException failure() {
        return failure;
    }

    private DdpException fail(DdpException e) {
        stopped = true;
        if (failure == null) {
            failure = e;
        }
        return e;
    }

    @Override
    public String toString() {
        return "DdpReceiver[PD " + protectionDomain + ", stream " + streamId + ", QNs " + queues.keySet()
                + (stopped ? ", stopped" : "") + "]";
    }
}
