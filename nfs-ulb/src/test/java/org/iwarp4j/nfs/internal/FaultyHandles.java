package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Test access from other packages (the NFSv4 server's tests): file handles of an export whose
 * file-system calls while resolving throw an unchecked exception once {@link #armed}, as a bug in
 * the server would: what the client gets is a server fault.
 */
public final class FaultyHandles {

    public final FileHandles handles;
    public final AtomicBoolean armed = new AtomicBoolean();

    public FaultyHandles(Export export) {
        this.handles = new FileHandles(export, new FileHandles.Probe() {
            @Override
            public FileStat stat(Path path) throws IOException {
                failIfArmed();
                return FileStat.of(path);
            }

            @Override
            public Path realPath(Path path) throws IOException {
                failIfArmed();
                return path.toRealPath();
            }
        });
    }

    private void failIfArmed() {
        if (armed.get()) {
            throw new IllegalStateException("a bug in the server, for the test");
        }
    }
}
