package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The file system's writes and forces of file data ({@link WriteVerifier.FileIo}), but before
 * each a test may fail it or make something happen (close the channel, run another call). Counts
 * from 1 in each kind, from {@link #install}.
 */
public abstract class FaultyFileIo implements WriteVerifier.FileIo {

    private final AtomicInteger forces = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();

    /** Makes the context's WRITEs and COMMITs (NFSv3 and NFSv4) go through this. */
    public final FaultyFileIo install(Nfs3Context ctx) {
        ctx.verifier().io(this);
        return this;
    }

    @Override
    public final int write(FileChannel channel, ByteBuffer data, long position) throws IOException {
        beforeWrite(writes.incrementAndGet());
        return channel.write(data, position);
    }

    @Override
    public final void force(FileChannel channel, boolean metaData) throws IOException {
        beforeForce(forces.incrementAndGet(), channel);
        channel.force(metaData);
    }

    /** Before the n-th write; throwing fails it. */
    protected void beforeWrite(int n) throws IOException {
    }

    /** Before the n-th force, through {@code channel}; throwing fails it. */
    protected void beforeForce(int n, FileChannel channel) throws IOException {
    }
}
