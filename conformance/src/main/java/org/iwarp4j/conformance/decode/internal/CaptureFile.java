package org.iwarp4j.conformance.decode.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames of a classic libpcap file (microsecond {@code a1b2c3d4} or nanosecond {@code a1b23c4d}
 * magic, either byte order) or of a pcapng file (section header, interface description, enhanced
 * and simple packet blocks; several sections and interfaces, each with its own link type). Frames
 * are numbered from 1 in file order, as tcpdump, tshark and Wireshark number them.
 *
 * <p>A file cut short inside a record, or with a damaged record, keeps the frames before it and
 * says so in {@link #truncated()}; a file that is neither format, or whose first header is cut
 * short or damaged, is {@link UnreadableException unreadable}.
 */
public final class CaptureFile {

    /**
     * One captured frame: its number, link type, timestamp in nanoseconds, and the captured octets
     * (a read-only view into the file's octets, not a copy: the file is held once).
     */
    public record Frame(long number, int linkType, long timestampNanos, ByteBuffer data) {
    }

    /** The input is not a capture this reader understands. */
    public static final class UnreadableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadableException(String message) {
            super(message);
        }
    }

    private static final int PCAP_MICROS = 0xa1b2c3d4;
    private static final int PCAP_NANOS = 0xa1b23c4d;
    private static final int PCAPNG_SECTION = 0x0a0d0d0a;
    private static final int PCAPNG_BYTE_ORDER = 0x1a2b3c4d;

    private final String format;
    private final List<Frame> frames;
    private final boolean truncated;

    private CaptureFile(String format, List<Frame> frames, boolean truncated) {
        this.format = format;
        this.frames = frames;
        this.truncated = truncated;
    }

    /** {@code pcap} or {@code pcapng}. */
    public String format() {
        return format;
    }

    public List<Frame> frames() {
        return frames;
    }

    /**
     * Reading stopped at a record cut short (a capture still being written, or a copy that stopped
     * early) or damaged (its length too short for its type, or its fields beyond it).
     */
    public boolean truncated() {
        return truncated;
    }

    public static CaptureFile parse(byte[] bytes) throws UnreadableException {
        if (bytes.length < 4) {
            throw new UnreadableException("not a pcap or pcapng file: " + bytes.length + " octets");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        int magic = in.getInt(0);
        if (magic == PCAPNG_SECTION) {
            return pcapng(in);
        }
        return pcap(in, magic);
    }

    private static CaptureFile pcap(ByteBuffer in, int magic) throws UnreadableException {
        boolean nanos;
        if (magic == PCAP_MICROS || magic == PCAP_NANOS) {
            in.order(ByteOrder.BIG_ENDIAN);
            nanos = magic == PCAP_NANOS;
        } else if (Integer.reverseBytes(magic) == PCAP_MICROS || Integer.reverseBytes(magic) == PCAP_NANOS) {
            in.order(ByteOrder.LITTLE_ENDIAN);
            nanos = Integer.reverseBytes(magic) == PCAP_NANOS;
        } else {
            throw new UnreadableException(String.format("not a pcap or pcapng file (magic %08x)", magic));
        }
        if (in.limit() < 24) {
            throw new UnreadableException("pcap file header cut short: " + in.limit() + " octets");
        }
        int linkType = in.getInt(20) & 0x0fffffff; // the top bits may carry an FCS length
        List<Frame> frames = new ArrayList<>();
        int pos = 24;
        boolean truncated = false;
        while (pos < in.limit()) {
            if (in.limit() - pos < 16) {
                truncated = true;
                break;
            }
            long seconds = in.getInt(pos) & 0xffffffffL;
            long fraction = in.getInt(pos + 4) & 0xffffffffL;
            int captured = in.getInt(pos + 8);
            if (captured < 0 || captured > in.limit() - pos - 16) {
                truncated = true;
                break;
            }
            ByteBuffer data = in.slice(pos + 16, captured).asReadOnlyBuffer();
            frames.add(new Frame(frames.size() + 1, linkType,
                    seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1000), data));
            pos += 16 + captured;
        }
        return new CaptureFile("pcap", frames, truncated);
    }

    private static CaptureFile pcapng(ByteBuffer in) throws UnreadableException {
        List<Frame> frames = new ArrayList<>();
        List<Integer> linkTypes = new ArrayList<>();
        List<Long> resolutions = new ArrayList<>();
        int pos = 0;
        boolean truncated = false;
        while (pos < in.limit()) {
            if (in.limit() - pos < 12) {
                truncated = true;
                break;
            }
            // The section magic reads the same in either byte order.
            int type = in.getInt(pos);
            if (type == PCAPNG_SECTION) {
                int order = in.getInt(pos + 8);
                if (order == PCAPNG_BYTE_ORDER) {
                    in.order(ByteOrder.BIG_ENDIAN);
                } else if (Integer.reverseBytes(order) == PCAPNG_BYTE_ORDER) {
                    in.order(ByteOrder.LITTLE_ENDIAN);
                } else if (pos == 0) {
                    throw new UnreadableException(String.format("pcapng section with byte-order magic %08x", order));
                } else {
                    truncated = true;
                    break;
                }
                linkTypes.clear();
                resolutions.clear();
            } else if (pos == 0) {
                throw new UnreadableException("pcapng without a section header");
            }
            int length = in.getInt(pos + 4);
            if (length < minimumLength(type) || length % 4 != 0 || length > in.limit() - pos) {
                if (pos == 0) {
                    throw new UnreadableException("pcapng block of length " + length + " at offset " + pos);
                }
                truncated = true;
                break;
            }
            if (!block(in, type, pos, length, frames, linkTypes, resolutions)) {
                truncated = true;
                break;
            }
            pos += length;
        }
        return new CaptureFile("pcapng", frames, truncated);
    }

    /**
     * The shortest a block of each type can be: type, length, the fixed fields, length again
     * (pcapng, draft-ietf-opsawg-pcapng §4.1-4.4). A shorter one is damaged, however its length
     * field reads.
     */
    private static int minimumLength(int type) {
        return switch (type) {
            case PCAPNG_SECTION -> 28;
            case 1 -> 20; // interface description
            case 6, 2 -> 32; // enhanced packet, obsolete packet
            case 3 -> 16; // simple packet
            default -> 12;
        };
    }

    /** Reads one block of at least its type's minimum length; false if it is damaged. */
    private static boolean block(ByteBuffer in, int type, int pos, int length, List<Frame> frames,
                                 List<Integer> linkTypes, List<Long> resolutions) {
        switch (type) {
            case 1 -> { // interface description: link type, reserved, snaplen, options
                linkTypes.add(in.getShort(pos + 8) & 0xffff);
                resolutions.add(timestampResolution(in, pos + 16, pos + length - 4));
            }
            case 6, 2 -> {
                // Enhanced packet; or the obsolete Packet Block, laid out alike but with a 16-bit interface
                // ID and a drop count in the first word. Wireshark numbers both as frames, so this does too.
                int iface = type == 6 ? in.getInt(pos + 8) : in.getShort(pos + 8) & 0xffff;
                long stamp = (in.getInt(pos + 12) & 0xffffffffL) << 32 | (in.getInt(pos + 16) & 0xffffffffL);
                int captured = in.getInt(pos + 20);
                if (iface < 0 || iface >= linkTypes.size() || captured < 0 || captured > length - 32) {
                    return false;
                }
                ByteBuffer data = in.slice(pos + 28, captured).asReadOnlyBuffer();
                long unitsPerSecond = resolutions.get(iface);
                long nanos = unitsPerSecond == 1_000_000_000L ? stamp
                        : stamp / unitsPerSecond * 1_000_000_000L + stamp % unitsPerSecond * 1_000_000_000L / unitsPerSecond;
                frames.add(new Frame(frames.size() + 1, linkTypes.get(iface), nanos, data));
            }
            case 3 -> { // simple packet: interface 0, no timestamp
                if (linkTypes.isEmpty()) {
                    return false;
                }
                int original = in.getInt(pos + 8);
                int captured = Math.max(Math.min(original, length - 16), 0);
                ByteBuffer data = in.slice(pos + 12, captured).asReadOnlyBuffer();
                frames.add(new Frame(frames.size() + 1, linkTypes.get(0), 0, data));
            }
            default -> {
                // name resolution, statistics, custom blocks: nothing a decoder needs
            }
        }
        return true;
    }

    /** The if_tsresol option: units per second (default 10^6). */
    private static long timestampResolution(ByteBuffer in, int from, int to) {
        int pos = from;
        while (pos + 4 <= to) {
            int code = in.getShort(pos) & 0xffff;
            int length = in.getShort(pos + 2) & 0xffff;
            if (code == 0) {
                break;
            }
            if (code == 9 && length >= 1 && pos + 5 <= to) {
                int value = in.get(pos + 4) & 0xff;
                int exponent = value & 0x7f;
                if (exponent > 18) {
                    return 1_000_000L;
                }
                long units = 1;
                for (int i = 0; i < exponent; i++) {
                    units *= (value & 0x80) != 0 ? 2 : 10;
                }
                return units;
            }
            pos += 4 + (length + 3) / 4 * 4;
        }
        return 1_000_000L;
    }
}
