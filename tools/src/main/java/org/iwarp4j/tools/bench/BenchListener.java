package org.iwarp4j.tools.bench;

/**
 * What a benchmark run tells its caller while it runs, and how the caller stops it: the step now
 * running (for a progress line), each size's row as soon as the size is done (RDMA and, between
 * iwarp4j ends, plain TCP right after it), and whether to stop. A stop request ends the measurement
 * in progress early; its figures arrive as a row marked partial, then the run throws {@link
 * BenchStoppedException}. Called on the thread running the client end.
 */
public interface BenchListener {

    /** A listener that wants nothing and never stops the run. */
    BenchListener NONE = new BenchListener() { };

    /**
     * The client end reached the server and exchanged perftest's versions with it: called once the
     * peer answers (so a caller can print its header only for a run that has a peer), before any
     * measurement; again on each pass of a run repeated in one call.
     *
     * @param peerVersion the server's version string (iwarp4j's, or a perftest release's)
     */
    default void connected(String peerVersion) {
    }

    /** The step now running, e.g. {@code RDMA Write 65536 octets}. */
    default void progress(String what) {
    }

    /** One size is done (or, {@link BenchRow#partial()}, was interrupted). */
    default void row(BenchRow row) {
    }

    /** Polled while measuring (cheaply, often): {@code true} ends the run. */
    default boolean stopRequested() {
        return false;
    }

    /** A listener with only a progress line, as the {@code Consumer<String>} methods take it. */
    static BenchListener progressOnly(java.util.function.Consumer<String> progress) {
        if (progress == null) {
            return NONE;
        }
        return new BenchListener() {
            @Override
            public void progress(String what) {
                progress.accept(what);
            }
        };
    }
}
