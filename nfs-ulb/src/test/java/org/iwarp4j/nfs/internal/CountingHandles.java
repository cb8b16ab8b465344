package org.iwarp4j.nfs.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Test access from other packages (the NFSv4 server's tests): file handles of an export whose
 * file-system calls while resolving (stat, {@code toRealPath}) are counted in {@link #calls}.
 */
public final class CountingHandles {

    public final FileHandles handles;
    public final AtomicLong calls;

    public CountingHandles(Export export) {
        FileHandlesTest.CountingProbe probe = new FileHandlesTest.CountingProbe();
        this.handles = new FileHandles(export, probe);
        this.calls = probe.calls;
    }
}
