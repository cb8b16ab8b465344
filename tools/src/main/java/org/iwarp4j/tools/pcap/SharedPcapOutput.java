package org.iwarp4j.tools.pcap;

import io.netty.handler.pcap.PcapWriteHandler;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The pcap file every connection of a recording writes into: the global header once, then
 * records from any number of event loops. PcapWriteHandler, built with {@code sharedOutputStream},
 * writes each record's header and data while holding this stream's monitor; every method here
 * takes the same monitor, so records never interleave.
 *
 * <p>A failing file must not fail the connections it records (PcapWriteHandler would fire the
 * IOException into the iWARP pipeline), so write errors are kept for {@link #failure()} and later
 * records dropped; so are records that come after {@link #close()}, e.g. a connection torn down late.
 */
final class SharedPcapOutput extends OutputStream {

    private static final int BUFFER = 1 << 16;

    private final OutputStream file;
    private long octets;
    private IOException failure;
    private boolean closed;

    private SharedPcapOutput(OutputStream file) {
        this.file = file;
    }

    /** Creates (or truncates) {@code path} and writes the pcap global header (link type Ethernet). */
    static SharedPcapOutput create(Path path) throws IOException {
        return over(new BufferedOutputStream(Files.newOutputStream(path), BUFFER));
    }

    /** As {@link #create} but into {@code file}, which it closes on failure. */
    static SharedPcapOutput over(OutputStream file) throws IOException {
        try {
            PcapWriteHandler.writeGlobalHeader(file);
            file.flush();
        } catch (IOException e) {
            file.close();
            throw e;
        }
        return new SharedPcapOutput(file);
    }

    @Override
    public synchronized void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        if (closed || failure != null) {
            return;
        }
        try {
            file.write(b, off, len);
            octets += len;
        } catch (IOException e) {
            failure = e;
        }
    }

    @Override
    public synchronized void flush() {
        if (closed || failure != null) {
            return;
        }
        try {
            file.flush();
        } catch (IOException e) {
            failure = e;
        }
    }

    /** Flushes and closes the file; later writes are dropped. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            file.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }

    /** Octets of records written after the global header. */
    synchronized long octets() {
        return octets;
    }

    /** The first error writing the file, or {@code null}: records after it are missing. */
    synchronized IOException failure() {
        return failure;
    }
}
