package org.iwarp4j.mpa;

/**
 * User event fired by {@link MpaStartupHandler} when startup ends, before any ULPDU of Full
 * Operation reaches the next handler.
 */
public final class MpaStartupEvent {

    private final NegotiatedParameters parameters;
    private final MpaException cause;

    private MpaStartupEvent(NegotiatedParameters parameters, MpaException cause) {
        this.parameters = parameters;
        this.cause = cause;
    }

    static MpaStartupEvent success(NegotiatedParameters parameters) {
        return new MpaStartupEvent(parameters, null);
    }

    static MpaStartupEvent failure(MpaException cause) {
        return new MpaStartupEvent(null, cause);
    }

    public boolean isSuccess() {
        return cause == null;
    }

    /** The negotiated parameters, or {@code null} on failure. */
    public NegotiatedParameters parameters() {
        return parameters;
    }

    /** Why startup failed, or {@code null}. */
    public MpaException cause() {
        return cause;
    }

    @Override
    public String toString() {
        return isSuccess() ? "MpaStartupEvent(" + parameters + ")" : "MpaStartupEvent(failed: " + cause + ")";
    }
}
