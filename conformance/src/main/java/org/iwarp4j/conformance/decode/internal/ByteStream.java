package org.iwarp4j.conformance.decode.internal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The octets one side of a TCP connection sent, in sequence order, as far as the capture holds
 * them: retransmitted octets are kept once, segments that came out of order are put in their
 * place, and octets no frame carried are recorded as {@link Gap gaps}. Offset 0 is the first data
 * octet: the one after the SYN when the SYN was captured, else the lowest sequence number of the
 * stream's segments ({@link #lowest}).
 *
 * <p>Only captured octets are stored ({@link #data()}, gaps left out), so a capture whose
 * sequence numbers leave hundreds of megaoctets between one-octet segments costs no more memory
 * than the octets it holds; {@link #index} finds an offset's octet. Offsets stay the stream's
 * own, so markers (every 512 octets of the stream, RFC 5044 §4.2) and the offsets in notes are
 * those of the wire.
 */
public final class ByteStream {

    /** Octets missing from the capture: {@code length} octets from {@code offset}, before {@code frameAfter}. */
    public record Gap(long offset, long length, long frameAfter) {
    }

    /** A segment and the stream offset of its first octet. */
    private record Placed(TcpPacket packet, long offset) {
    }

    private static final long SEQUENCE_SPACE = 1L << 32;
    /** Octets a capture may lack in one go before the rest is taken as not this stream's. */
    private static final long MAX_JUMP = 256L << 20;

    private final InetSocketAddress source;
    private final InetSocketAddress destination;
    private final byte[] data;
    private final long length;
    private final List<Gap> gaps;
    /** Where each gap ends, ascending (gaps are sorted and disjoint): for binary search. */
    private final long[] gapEnds;
    /** The octets missing before each gap, and last all of them: an offset less these is its place in {@link #data}. */
    private final long[] missingBefore;
    private final long[] segmentOffsets;
    private final long[] segmentFrames;
    private final int retransmitted;
    private final int outOfOrder;
    private final int announcedMss;
    private final long finFrame;
    private final int ignored;

    private ByteStream(InetSocketAddress source, InetSocketAddress destination, byte[] data, long length,
                       List<Gap> gaps, long[] segmentOffsets, long[] segmentFrames, int retransmitted,
                       int outOfOrder, int announcedMss, long finFrame, int ignored) {
        this.source = source;
        this.destination = destination;
        this.data = data;
        this.length = length;
        this.gaps = gaps;
        this.gapEnds = new long[gaps.size()];
        this.missingBefore = new long[gaps.size() + 1];
        for (int i = 0; i < gaps.size(); i++) {
            gapEnds[i] = gaps.get(i).offset() + gaps.get(i).length();
            missingBefore[i + 1] = missingBefore[i] + gaps.get(i).length();
        }
        this.segmentOffsets = segmentOffsets;
        this.segmentFrames = segmentFrames;
        this.retransmitted = retransmitted;
        this.outOfOrder = outOfOrder;
        this.announcedMss = announcedMss;
        this.finFrame = finFrame;
        this.ignored = ignored;
    }

    /** Builds the stream from the packets one side sent, in capture order. */
    static ByteStream assemble(InetSocketAddress source, InetSocketAddress destination, List<TcpPacket> packets) {
        long initial = -1;
        int mss = -1;
        long finFrame = -1;
        List<TcpPacket> withData = new ArrayList<>();
        for (TcpPacket p : packets) {
            if (p.has(TcpPacket.SYN) && initial < 0) {
                initial = p.sequence();
                mss = p.mss();
            }
            if (p.has(TcpPacket.FIN) && finFrame < 0) {
                finFrame = p.frame();
            }
            if (p.payload().length > 0) {
                withData.add(p);
            }
        }
        long first = initial >= 0 ? (initial + 1) % SEQUENCE_SPACE : lowest(withData);
        // Sequence numbers count modulo 2^32 (RFC 9293 §3.4): each segment is placed at the offset, among
        // those its number allows, nearest the highest octet so far, so a stream past 4 GiB goes on
        // instead of folding back onto its start as retransmissions. A segment far ahead (dropped below)
        // does not move the reference.
        // Out of order: in capture order, a segment that starts below the highest octet seen so far at an
        // offset no earlier segment started at (one that did is a retransmission, counted below).
        int outOfOrder = 0;
        long highest = 0;
        java.util.Set<Long> starts = new java.util.HashSet<>();
        List<Placed> placed = new ArrayList<>(withData.size());
        for (TcpPacket p : withData) {
            // A SYN's own number comes before its data (RFC 9293 §3.4): data in a SYN (TCP Fast Open, RFC
            // 7413) starts at the next one, the stream's first octet.
            long modular = offset(p.has(TcpPacket.SYN) ? p.sequence() + 1 : p.sequence(), first);
            long offset = highest + (int) (modular - highest); // the int cast: nearest, within ±2 GiB
            if (offset < 0) { // before the first octet: as far as the modular offset says
                offset = modular;
            }
            if (offset < highest && !starts.contains(offset)) {
                outOfOrder++;
            }
            starts.add(offset);
            if (offset <= highest + MAX_JUMP) {
                highest = Math.max(highest, offset + p.payload().length);
            }
            placed.add(new Placed(p, offset));
        }
        List<Placed> sorted = new ArrayList<>(placed);
        sorted.sort(Comparator.comparingLong(Placed::offset).thenComparingLong(q -> q.packet().frame()));
        // A segment far beyond what came before cannot belong to this stream (a sequence number damaged,
        // or a connection reusing the ports much later): it and everything after it in sequence order are
        // left out, so that one bad number cannot make the rest of the stream one long gap.
        long extent = 0;
        long captured = 0;
        int accepted = 0;
        for (Placed q : sorted) {
            long offset = q.offset();
            int length = q.packet().payload().length;
            if (offset > extent + MAX_JUMP) {
                break;
            }
            captured += Math.max(0, offset + length - Math.max(offset, extent));
            extent = Math.max(extent, offset + length);
            accepted++;
        }
        int ignored = sorted.size() - accepted;
        sorted = sorted.subList(0, accepted);
        // Fits: every captured octet came out of a capture file, which is at most 2 GiB (CaptureDecoder).
        byte[] data = new byte[Math.toIntExact(captured)];
        List<Gap> gaps = new ArrayList<>();
        long[] offsets = new long[sorted.size()];
        long[] frames = new long[sorted.size()];
        int segments = 0;
        int retransmitted = 0;
        long covered = 0;
        int stored = 0;
        for (Placed q : sorted) {
            TcpPacket p = q.packet();
            long offset = q.offset();
            byte[] payload = p.payload();
            long end = offset + payload.length;
            if (end <= covered) {
                retransmitted++;
                continue;
            }
            int skip = 0;
            if (offset < covered) {
                retransmitted++;
                skip = (int) (covered - offset);
            } else if (offset > covered) {
                gaps.add(new Gap(covered, offset - covered, p.frame()));
            }
            System.arraycopy(payload, skip, data, stored, payload.length - skip);
            stored += payload.length - skip;
            offsets[segments] = offset + skip;
            frames[segments] = p.frame();
            segments++;
            covered = end;
        }
        return new ByteStream(source, destination, data, extent, List.copyOf(gaps), Arrays.copyOf(offsets, segments),
                Arrays.copyOf(frames, segments), retransmitted, outOfOrder, mss, finFrame, ignored);
    }

    /**
     * The first sequence number of a stream whose SYN the capture lacks: the lowest of the cluster
     * of segments (each within {@link #MAX_JUMP} of the next in sequence order) that holds the most
     * captured octets. One stray segment far from the stream (a damaged number, an earlier or a
     * later connection on the same ports), whether below it or above it and wherever it comes in
     * capture order, is then left out, not the stream and its MPA Request. Of clusters that hold
     * as many, the one of the first segment in capture order wins.
     */
    private static long lowest(List<TcpPacket> packets) {
        if (packets.isEmpty()) {
            return 0;
        }
        long reference = packets.get(0).sequence();
        List<Located> located = new ArrayList<>(packets.size());
        for (int i = 0; i < packets.size(); i++) {
            TcpPacket p = packets.get(i);
            // The distance is the nearest one, within ±2 GiB.
            located.add(new Located((int) (p.sequence() - reference), i, p.payload().length));
        }
        located.sort(Comparator.comparingLong(Located::distance));
        Located best = null;
        long bestOctets = -1;
        int bestOrder = Integer.MAX_VALUE;
        int start = 0;
        while (start < located.size()) {
            int end = start;
            long octets = 0;
            int order = Integer.MAX_VALUE;
            do {
                octets += located.get(end).octets();
                order = Math.min(order, located.get(end).order());
                end++;
            } while (end < located.size() && located.get(end).distance() - located.get(end - 1).distance() <= MAX_JUMP);
            if (octets > bestOctets || octets == bestOctets && order < bestOrder) {
                best = located.get(start);
                bestOctets = octets;
                bestOrder = order;
            }
            start = end;
        }
        return Math.floorMod(reference + best.distance(), SEQUENCE_SPACE);
    }

    /** A segment's distance from the first one in capture order, its place in that order, its octets. */
    private record Located(long distance, int order, int octets) {
    }

    private static long offset(long sequence, long first) {
        return Math.floorMod(sequence - first, SEQUENCE_SPACE);
    }

    public InetSocketAddress source() {
        return source;
    }

    public InetSocketAddress destination() {
        return destination;
    }

    /**
     * The captured octets in stream order, gaps left out: up to the first gap, an octet's index is
     * its offset; beyond it, {@link #index} says where an offset's octet is.
     */
    public byte[] data() {
        return data;
    }

    /** The stream's length: the offset after its last captured octet, gaps counted. */
    public long length() {
        return length;
    }

    public List<Gap> gaps() {
        return gaps;
    }

    /**
     * Where the octet at {@code offset} is in {@link #data()}: the number of captured octets before
     * it. Octets of a range without a gap are consecutive there.
     */
    public int index(long offset) {
        int i = firstGapEndingAfter(offset);
        long missing = missingBefore[i];
        if (i < gaps.size()) { // inside gap i, its octets before the offset are missing too
            missing += Math.max(0, Math.min(offset, gapEnds[i]) - gaps.get(i).offset());
        }
        return (int) (offset - missing);
    }

    /** The first gap that overlaps {@code [from, to)}, or {@code null}. */
    public Gap gapIn(long from, long to) {
        int i = firstGapEndingAfter(from);
        return i < gaps.size() && gaps.get(i).offset() < to ? gaps.get(i) : null;
    }

    /** The gaps that overlap {@code [from, to)}, in stream order. */
    public List<Gap> gapsIn(long from, long to) {
        int first = firstGapEndingAfter(from);
        int end = first;
        while (end < gaps.size() && gaps.get(end).offset() < to) {
            end++;
        }
        return gaps.subList(first, end);
    }

    /** The index of the first gap that ends after {@code offset}, or the number of gaps. */
    private int firstGapEndingAfter(long offset) {
        int low = 0;
        int high = gapEnds.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (gapEnds[mid] <= offset) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** The frame that carried the octet at {@code offset} (the nearest one before it inside a gap), or -1. */
    public long frameAt(long offset) {
        int i = Arrays.binarySearch(segmentOffsets, offset);
        if (i < 0) {
            i = -i - 2;
        }
        return i < 0 ? -1 : segmentFrames[i];
    }

    public int retransmitted() {
        return retransmitted;
    }

    public int outOfOrder() {
        return outOfOrder;
    }

    /** The MSS this side announced in its SYN, or -1. */
    public int announcedMss() {
        return announcedMss;
    }

    /** Segments left out because their sequence numbers lie far beyond the rest of the stream. */
    public int ignored() {
        return ignored;
    }

    /** The frame of this side's first FIN, or -1. */
    public long finFrame() {
        return finFrame;
    }
}
