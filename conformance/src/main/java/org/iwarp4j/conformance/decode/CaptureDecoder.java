package org.iwarp4j.conformance.decode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.iwarp4j.conformance.decode.internal.CaptureFile;
import org.iwarp4j.conformance.decode.internal.Decoding;

/**
 * Decodes a pcap or pcapng capture and checks every iWARP connection in it against the RFC rules
 * listed in {@link Check}: the engine behind {@code iwarp decode}.
 *
 * <p>What it does, in order:
 * <ol>
 *   <li>reads the frames (pcap in either byte order and time resolution, pcapng; Ethernet, Linux
 *       cooked SLL/SLL2 as {@code tcpdump -i any} writes, loopback, raw IP; IPv4 and IPv6);
 *   <li>reassembles both directions of every TCP connection, putting out-of-order segments in
 *       place, keeping retransmitted octets once and recording octets the capture lacks;
 *   <li>takes as iWARP each connection whose first octets are an MPA Request (either side, so a
 *       capture that missed the SYN still works), and, with {@link DecodeOptions#ports()}, the
 *       connections on those ports that start mid-stream;
 *   <li>decodes the startup frames, then the FPDUs of both directions (markers and CRC as
 *       negotiated), the DDP segments, the RDMAP messages, and on RPC-over-RDMA connections (port
 *       20049, or RFC 8797 private data) the transport headers and RPC messages, checking each
 *       layer's rules and the rules that link the two directions;
 *   <li>after a gap, finds the next FPDU (by its marker, or by a plausible header and CRC) and
 *       goes on, without judging sequences the gap broke.
 * </ol>
 *
 * <p>The decoders are the stack's own: {@code MpaStartupFrame}, {@code EnhancedConnectionData},
 * {@code Mulpdu}, {@code RdmapControl}, {@code ReadRequestHeader}, {@code TerminateMessage},
 * {@code TerminateReason}, {@code RpcRdmaHeaderDecoder}, {@code RpcRdmaPrivateData}, {@code
 * InlineThresholds}, {@code RpcCallHeader}, {@code RpcReplyHeader} and the NFS binding tables.
 * The whole file is read into memory (at most 2 GiB); then only its TCP payloads and one
 * connection's streams at a time are kept.
 */
public final class CaptureDecoder {

    private CaptureDecoder() {
    }

    /** The largest file read: the largest Java array. */
    static final long MAX_FILE_SIZE = Integer.MAX_VALUE - 8;

    /**
     * Decodes {@code file}.
     *
     * @throws UnreadableCaptureException also for a file over 2 GiB, with advice on splitting it
     */
    public static DecodeReport decode(Path file, DecodeOptions options) throws UnreadableCaptureException {
        Decoding.Packets packets;
        try {
            // The file's octets are referenced only while its packets are taken out.
            packets = Decoding.read(read(file));
        } catch (CaptureFile.UnreadableException e) {
            throw new UnreadableCaptureException(file + ": " + e.getMessage(), e);
        }
        return Decoding.report(packets, options);
    }

    private static byte[] read(Path file) throws UnreadableCaptureException {
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_SIZE) {
                throw new UnreadableCaptureException(String.format(Locale.ROOT, "%s: %,d octets, more than the"
                        + " decoder reads (2 GiB); split it first, e.g. editcap -c 1000000 %s part.pcap, and decode"
                        + " the parts", file, size, file));
            }
            return Files.readAllBytes(file);
        } catch (UnreadableCaptureException e) {
            throw e;
        } catch (IOException e) {
            throw new UnreadableCaptureException(file + ": " + reason(e), e);
        }
    }

    /** Why a file could not be read, in words: the file system exceptions' messages are only the path. */
    private static String reason(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return String.valueOf(e.getMessage());
    }

    /** Decodes a capture held in memory. */
    public static DecodeReport decode(byte[] capture, DecodeOptions options) throws UnreadableCaptureException {
        try {
            return Decoding.run(capture, options);
        } catch (CaptureFile.UnreadableException e) {
            throw new UnreadableCaptureException(e.getMessage(), e);
        }
    }
}
