package org.iwarp4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads the TCP connections out of a classic libpcap capture, so tests can replay real wire traffic
 * (from Linux siw, tcpdump'ed) through our decoders without tshark.
 *
 * <p>Supported: the microsecond ({@code a1b2c3d4}) and nanosecond ({@code a1b23c4d}) formats in
 * either byte order; Ethernet, raw IP and Linux cooked (SLL, SLL2) link types; IPv4 and IPv6; TCP.
 * Not pcapng: convert with {@code editcap -F pcap}. The whole file is read into memory, which suits
 * test fixtures.
 *
 * <p>Connections come in order of their first frame, so {@code connections().get(i)} is tshark's
 * {@code tcp.stream == i}.
 */
public final class PcapReader {

    private final int frameCount;
    private final List<TcpConnection> connections;

    private PcapReader(int frameCount, List<TcpConnection> connections) {
        this.frameCount = frameCount;
        this.connections = connections;
    }

    public static PcapReader read(Path file) throws IOException {
        try {
            return parse(ByteBuffer.wrap(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    public static PcapReader read(InputStream in) throws IOException {
        return parse(ByteBuffer.wrap(in.readAllBytes()));
    }

    private static PcapReader parse(ByteBuffer bytes) throws IOException {
        PcapFile file = PcapFile.parse(bytes);
        if (!TcpPacketDecoder.supports(file.linkType())) {
            throw new IOException("unsupported link type " + file.linkType()
                    + " (supported: Ethernet 1, raw IP 101/228/229, Linux SLL 113, SLL2 276)");
        }
        TcpConnectionAssembler assembler = new TcpConnectionAssembler();
        for (CapturedFrame frame : file.frames()) {
            TcpPacketDecoder.decode(file.linkType(), frame).ifPresent(assembler::add);
        }
        return new PcapReader(file.frames().size(), assembler.assemble());
    }

    /** The number of frames in the file, TCP or not. */
    public int frameCount() {
        return frameCount;
    }

    /** The TCP connections, in order of their first frame. */
    public List<TcpConnection> connections() {
        return connections;
    }

    /**
     * The capture's only TCP connection.
     *
     * @throws IllegalStateException if there is not exactly one
     */
    public TcpConnection onlyConnection() {
        if (connections.size() != 1) {
            throw new IllegalStateException("expected one TCP connection, found " + connections.size()
                    + ": " + connections);
        }
        return connections.get(0);
    }
}
