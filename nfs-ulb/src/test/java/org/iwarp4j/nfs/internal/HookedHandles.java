package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test access from other packages (the NFSv4 server's tests): file handles of an export that run
 * a hook, once, when a resolution stats a path ending in a given one — the moment a test makes
 * another call race the resolution.
 */
public final class HookedHandles {

    public final FileHandles handles;
    private final AtomicReference<Runnable> atNextStat = new AtomicReference<>();

    /** Handles of {@code export} whose stats of paths ending in {@code suffix} can run a hook. */
    public HookedHandles(Export export, Path suffix) {
        this.handles = new FileHandles(export, new FileHandles.Probe() {
            @Override
            public FileStat stat(Path path) throws IOException {
                FileStat st = FileStat.of(path);
                if (path.endsWith(suffix)) {
                    Runnable hook = atNextStat.getAndSet(null);
                    if (hook != null) {
                        hook.run();
                    }
                }
                return st;
            }

            @Override
            public Path realPath(Path path) throws IOException {
                return path.toRealPath();
            }
        });
    }

    /** Runs {@code hook} on the resolving thread, after the next stat of a path ending in the suffix. */
    public void atNextStat(Runnable hook) {
        atNextStat.set(hook);
    }
}
