package org.iwarp4j.interop.siw;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.iwarp4j.tools.pcap.PcapRecording;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;

/**
 * Our side of a connection to siw, recorded with Netty's PcapWriteHandler (through the cli's
 * {@link PcapRecording}, from each connection's first octet), and the MPA startup frames read
 * back from the file: what we really sent, and what siw really answered.
 */
final class Recording implements AutoCloseable {

    /** Byte 16 of a startup frame (RFC 5044 §7.1.1): M, C, R. */
    static final int M = 0x80;
    static final int C = 0x40;
    static final int R = 0x20;

    private final PcapRecording pcap;

    private Recording(PcapRecording pcap) {
        this.pcap = pcap;
    }

    static Recording open(Path dir, String name) throws IOException {
        Files.createDirectories(dir);
        return new Recording(PcapRecording.open(dir.resolve(name + ".pcap")));
    }

    Path file() {
        return pcap.file();
    }

    /** An RNIC builder whose every connection goes into this recording. */
    Rnic.Builder rnic() {
        return Rnic.builder().channelInitializer(pcap::record);
    }

    /** The recorded TCP connections, read back (closes the file first). */
    List<TcpConnection> connections() throws IOException {
        pcap.close();
        return PcapReader.read(pcap.file()).connections();
    }

    /** The first 20 octets of the Request (from the connecting end) of the only connection. */
    byte[] request() throws IOException {
        return Arrays.copyOf(onlyConnection().clientToServer().stream(), 20);
    }

    /** The first 20 octets of the Reply (from the listening end) of the only connection. */
    byte[] reply() throws IOException {
        return Arrays.copyOf(onlyConnection().serverToClient().stream(), 20);
    }

    /** Octets of the Reply frame: the 20-octet header and its private data. */
    byte[] replyFrame() throws IOException {
        byte[] stream = onlyConnection().serverToClient().stream();
        int pdLength = ((stream[18] & 0xff) << 8) | (stream[19] & 0xff);
        return Arrays.copyOf(stream, 20 + pdLength);
    }

    private TcpConnection onlyConnection() throws IOException {
        List<TcpConnection> connections = connections();
        if (connections.size() != 1) {
            throw new AssertionError(connections.size() + " connections recorded in " + file() + ", expected 1");
        }
        return connections.get(0);
    }

    @Override
    public void close() {
        pcap.close();
    }
}
