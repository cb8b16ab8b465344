package org.iwarp4j.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The classic libpcap file format (not pcapng): a global header, then one record per frame.
 *
 * <p>The magic number tells both the byte order of every header field (the writer's native order)
 * and the timestamp resolution: {@code a1b2c3d4} microseconds, {@code a1b23c4d} nanoseconds.
 */
record PcapFile(int linkType, List<CapturedFrame> frames) {

    private static final int MAGIC_MICROSECONDS = 0xa1b2c3d4;
    private static final int MAGIC_NANOSECONDS = 0xa1b23c4d;
    private static final int MAGIC_PCAPNG = 0x0a0d0d0a;
    private static final int GLOBAL_HEADER_LENGTH = 24;
    private static final int RECORD_HEADER_LENGTH = 16;
    /** Far above any real snapshot length; a larger record length means a corrupt file. */
    private static final int MAX_RECORD_LENGTH = 1 << 28;

    static PcapFile parse(ByteBuffer file) throws IOException {
        ByteBuffer in = file.duplicate();
        if (in.remaining() < GLOBAL_HEADER_LENGTH) {
            throw new IOException("not a pcap file: only " + in.remaining() + " bytes");
        }
        boolean nanoseconds = readMagic(in);
        in.position(in.position() + 16); // version, time zone, accuracy, snapshot length
        // The upper four bits carry the FCS length, not the link type.
        int linkType = in.getInt() & 0x0fffffff;

        List<CapturedFrame> frames = new ArrayList<>();
        while (in.hasRemaining()) {
            int number = frames.size() + 1;
            if (in.remaining() < RECORD_HEADER_LENGTH) {
                throw new IOException("frame " + number + ": record header cut short");
            }
            long seconds = Integer.toUnsignedLong(in.getInt());
            long fraction = Integer.toUnsignedLong(in.getInt());
            int capturedLength = in.getInt();
            int originalLength = in.getInt();
            if (capturedLength < 0 || capturedLength > MAX_RECORD_LENGTH || capturedLength > in.remaining()) {
                throw new IOException("frame " + number + ": captured length " + Integer.toUnsignedString(capturedLength)
                        + " with " + in.remaining() + " bytes left in the file");
            }
            Instant timestamp = Instant.ofEpochSecond(seconds, nanoseconds ? fraction : fraction * 1000);
            ByteBuffer data = in.slice(in.position(), capturedLength).order(ByteOrder.BIG_ENDIAN);
            in.position(in.position() + capturedLength);
            frames.add(new CapturedFrame(number, timestamp, originalLength, data));
        }
        return new PcapFile(linkType, List.copyOf(frames));
    }

    /** Reads the magic number, sets the buffer's byte order from it, and returns whether timestamps are in ns. */
    private static boolean readMagic(ByteBuffer in) throws IOException {
        in.order(ByteOrder.BIG_ENDIAN);
        int magic = in.getInt(in.position());
        if (magic == MAGIC_PCAPNG) {
            throw new IOException("pcapng is not supported; convert with: editcap -F pcap in.pcapng out.pcap");
        }
        if (magic != MAGIC_MICROSECONDS && magic != MAGIC_NANOSECONDS) {
            in.order(ByteOrder.LITTLE_ENDIAN);
            magic = in.getInt(in.position());
        }
        if (magic != MAGIC_MICROSECONDS && magic != MAGIC_NANOSECONDS) {
            throw new IOException(String.format("not a pcap file: magic %08x", in.order(ByteOrder.BIG_ENDIAN).getInt(in.position())));
        }
        in.getInt();
        return magic == MAGIC_NANOSECONDS;
    }
}
