package org.iwarp4j.ddp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.NoSuchElementException;
import org.iwarp4j.mpa.OutboundUlpdu;

/**
 * Splits one ULP message into DDP segments of at most MULPDU octets each (RFC 5041 §5.2,
 * DDP-R-028): an untagged segment carries up to MULPDU - 18 payload octets, a tagged one up to
 * MULPDU - 14; the MO (untagged, DDP-R-026, DDP-R-029) or TO (tagged, DDP-R-030) of each segment
 * is the message's start plus the offset of its first payload octet; L = 1 on the last segment
 * only (DDP-R-013); every segment repeats the message's RsvdULP, STag or QN and MSN (DDP-R-019,
 * DDP-R-021, DDP-R-024); segments come in increasing MO / TO order (DDP-R-033) with L last
 * (DDP-R-014); a zero-length message is exactly one segment (DDP-R-031).
 *
 * <p>The RFC's examples: a 2048-octet untagged message with MULPDU 1500 gives MO 0 with 1482
 * octets and MO 1482 with 566; a tagged one at TO 16384 gives TO 16384 with 1486 octets and
 * TO 17870 with 562.
 *
 * <p><b>Buffers.</b> Nothing is copied: each ULPDU from {@link #nextUlpdu} is the header octets
 * plus a retained slice of the payload, and one from {@link #next} a small header buffer plus that
 * slice; either is owned by the caller (normally written to {@code MpaFrameEncoder}, which
 * releases it; it frames a large {@link OutboundUlpdu} without building a composite buffer). The
 * segmenter neither owns nor retains the payload: it takes the payload's readable octets when
 * created (later index changes do not matter), and the caller keeps its
 * reference until the last segment is taken (or it gives up on the message), then releases it;
 * the segments' slices keep their octets alive after that. Iterating one segment at a time lets
 * the caller stop when the channel is not writable.
 *
 * <p>Not thread-safe; one message, used once.
 */
public final class DdpSegmenter {

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final DdpHeader first;
    /** The first segment's header octets (L = 0), which each of {@link #nextUlpdu}'s copies and patches. */
    private final byte[] template;
    private final ByteBuf payload;
    private final int start;
    private final int length;
    private final int maxPayload;
    private int offset;
    private boolean done;

    private DdpSegmenter(DdpHeader first, ByteBuf payload, int mulpdu) {
        if (mulpdu <= first.length()) {
            throw new IllegalArgumentException("MULPDU " + mulpdu + " leaves no room for payload after the "
                    + first.length() + "-octet header");
        }
        this.first = first;
        this.template = octets(first);
        this.payload = payload;
        this.start = payload.readerIndex();
        this.length = payload.readableBytes();
        this.maxPayload = mulpdu - first.length();
    }

    /**
     * Segments a tagged message (RFC 5041 §5.2): {@code payload}'s readable octets, to be placed at
     * {@code stag} from {@code initialTo}.
     *
     * @param rsvdUlp the RsvdULP octet for every segment (RDMAP: 0x40 Write, 0x42 Read Response)
     * @param mulpdu the LLP's current MULPDU (DDP-R-001)
     * @throws IllegalArgumentException if {@code initialTo} + length would wrap 2^64, or MULPDU is
     *     not larger than the 14-octet header
     */
    public static DdpSegmenter tagged(int rsvdUlp, int stag, long initialTo, ByteBuf payload, int mulpdu) {
        int length = payload.readableBytes();
        if (wrapsTaggedOffset(initialTo, length)) {
            throw new IllegalArgumentException(String.format(
                    "a %d-octet tagged message at TO 0x%x would wrap 2^64", length, initialTo));
        }
        return taggedModulo(rsvdUlp, stag, initialTo, payload, mulpdu);
    }

    /**
     * {@link #tagged} for a message whose STag and TO the ULP passes on from its peer instead of
     * choosing them: each segment's TO is {@code initialTo} plus its position modulo 2^64, and a
     * range that wraps is sent as it is. RDMAP's Read Response is such a message: its Data Sink
     * STag and TO are copied from the peer's Read Request (RFC 5040 §4.4, §5.2.1), and RFC 5040
     * gives the Data Source no check of them and no error code for them; the Data Sink's DDP
     * refuses a segment whose TO + length wraps (RFC 5041 §7.1, DDP-R-048). Linux siw builds its
     * Read Response TOs the same way (64-bit sink TO plus octets sent).
     *
     * @throws IllegalArgumentException if MULPDU is not larger than the 14-octet header
     */
    public static DdpSegmenter taggedModulo(int rsvdUlp, int stag, long initialTo, ByteBuf payload, int mulpdu) {
        return new DdpSegmenter(new TaggedHeader(false, rsvdUlp, stag, initialTo), payload, mulpdu);
    }

    /**
     * Whether a tagged message of {@code length} octets from {@code initialTo} would wrap 2^64: its
     * last octet's TO + 1 does not fit 64 bits (the sum the Data Sink checks, RFC 5041 §7.1 check 5).
     * A zero-length message never wraps.
     */
    public static boolean wrapsTaggedOffset(long initialTo, long length) {
        return length > 0 && Long.compareUnsigned(initialTo + length, initialTo) < 0;
    }

    /**
     * Segments an untagged message (RFC 5041 §5.2) for queue {@code qn} with message sequence
     * number {@code msn} (from the queue's {@link MsnSequence}), MO from 0.
     *
     * @param rsvdUlp RsvdULP[0:7] for every segment (RDMAP: 0x43 Send, 0x41 Read Request, ...)
     * @param rsvdUlpWord RsvdULP[8:39] for every segment (RDMAP: the Invalidate STag, or 0)
     * @param mulpdu the LLP's current MULPDU (DDP-R-001)
     * @throws IllegalArgumentException if MULPDU is not larger than the 18-octet header
     */
    public static DdpSegmenter untagged(int rsvdUlp, int rsvdUlpWord, int qn, int msn, ByteBuf payload, int mulpdu) {
        return new DdpSegmenter(new UntaggedHeader(false, rsvdUlp, rsvdUlpWord, qn, msn, 0), payload, mulpdu);
    }

    /** Segments a message of {@code messageLength} octets takes: at least 1 (DDP-R-031). */
    public static long segmentCount(boolean tagged, long messageLength, int mulpdu) {
        int headerLength = tagged ? DdpConstants.TAGGED_HEADER_LENGTH : DdpConstants.UNTAGGED_HEADER_LENGTH;
        if (mulpdu <= headerLength) {
            throw new IllegalArgumentException("MULPDU " + mulpdu + " leaves no room for payload");
        }
        if (messageLength < 0 || messageLength > DdpConstants.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("message length must be 0.." + DdpConstants.MAX_MESSAGE_LENGTH);
        }
        long perSegment = mulpdu - headerLength;
        return messageLength == 0 ? 1 : (messageLength + perSegment - 1) / perSegment;
    }

    /** Segments this message takes in all. */
    public int segmentCount() {
        return (int) segmentCount(first.tagged(), length, maxPayload + first.length());
    }

    /** Octets of ULP payload in the message. */
    public int messageLength() {
        return length;
    }

    /** Whether a segment remains to be taken. */
    public boolean hasNext() {
        return !done;
    }

    /**
     * The header of the next segment, without taking it.
     *
     * @throws NoSuchElementException if none remains
     */
    public DdpHeader peekHeader() {
        if (done) {
            throw new NoSuchElementException("all " + segmentCount() + " segments were taken");
        }
        int n = Math.min(maxPayload, length - offset);
        boolean last = offset + n == length;
        if (first instanceof TaggedHeader t) {
            return new TaggedHeader(last, t.rsvdUlp(), t.stag(), t.to() + offset);
        }
        UntaggedHeader u = (UntaggedHeader) first;
        return new UntaggedHeader(last, u.rsvdUlp(), u.rsvdUlpWord(), u.qn(), u.msn(), offset);
    }

    /**
     * Takes the next segment as a ULPDU: header octets followed by a retained slice of the payload.
     * The caller owns the result.
     *
     * @throws NoSuchElementException if none remains
     */
    public ByteBuf next(ByteBufAllocator alloc) {
        DdpHeader header = peekHeader();
        int n = Math.min(maxPayload, length - offset);
        ByteBuf slice = payload.retainedSlice(start + offset, n);
        ByteBuf ulpdu = DdpSegment.encode(alloc, header, slice);
        offset += n;
        done = header.last();
        return ulpdu;
    }

    /**
     * Takes the next segment as an {@link OutboundUlpdu}: the header octets and a retained slice of
     * the payload. The caller owns the result. What RDMAP writes to {@code MpaFrameEncoder}.
     *
     * @throws NoSuchElementException if none remains
     */
    public OutboundUlpdu nextUlpdu() {
        if (done) {
            throw new NoSuchElementException("all " + segmentCount() + " segments were taken");
        }
        int n = Math.min(maxPayload, length - offset);
        boolean last = offset + n == length;
        // The octets peekHeader() would encode, without a header object per segment: only L and
        // the TO or MO differ from the first segment's.
        byte[] octets = template.clone();
        if (last) {
            octets[DdpConstants.OFFSET_CONTROL] |= (byte) DdpConstants.CONTROL_LAST;
        }
        if (first instanceof TaggedHeader t) {
            LONG.set(octets, DdpConstants.OFFSET_TO, t.to() + offset);
        } else {
            INT.set(octets, DdpConstants.OFFSET_MO, offset);
        }
        OutboundUlpdu ulpdu = OutboundUlpdu.of(octets, payload.retainedSlice(start + offset, n));
        offset += n;
        done = last;
        return ulpdu;
    }

    /** The octets {@link DdpHeader#encode} writes, into a new array without a buffer around it. */
    private static byte[] octets(DdpHeader header) {
        byte[] octets = new byte[header.length()];
        octets[DdpConstants.OFFSET_CONTROL] = (byte) header.control();
        octets[DdpConstants.OFFSET_RSVD_ULP] = (byte) header.rsvdUlp();
        if (header instanceof TaggedHeader t) {
            INT.set(octets, DdpConstants.OFFSET_STAG, t.stag());
            LONG.set(octets, DdpConstants.OFFSET_TO, t.to());
        } else {
            UntaggedHeader u = (UntaggedHeader) header;
            INT.set(octets, DdpConstants.OFFSET_RSVD_ULP_WORD, u.rsvdUlpWord());
            INT.set(octets, DdpConstants.OFFSET_QN, u.qn());
            INT.set(octets, DdpConstants.OFFSET_MSN, u.msn());
            INT.set(octets, DdpConstants.OFFSET_MO, u.mo());
        }
        return octets;
    }

    @Override
    public String toString() {
        return "DdpSegmenter[" + first + ", " + offset + "/" + length + " octets taken]";
    }
}
