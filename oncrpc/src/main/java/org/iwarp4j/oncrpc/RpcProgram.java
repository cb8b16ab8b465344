package org.iwarp4j.oncrpc;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One version of a server program (RFC 5531 §7): its program number, version number and
 * procedures. Register it with an {@link RpcDispatcher}; several versions of one program are
 * several {@code RpcProgram}s.
 */
public final class RpcProgram {

    private final int program;
    private final int version;
    private final Map<Integer, RpcProcedure> procedures;
    private final Set<Integer> nonIdempotent;

    private RpcProgram(Builder builder) {
        this.program = builder.program;
        this.version = builder.version;
        this.procedures = Map.copyOf(builder.procedures);
        this.nonIdempotent = Set.copyOf(builder.nonIdempotent);
    }

    /**
     * A builder for program {@code program}, version {@code version}; procedure 0 is the null
     * procedure unless the builder sets another.
     */
    public static Builder builder(int program, int version) {
        return new Builder(program, version);
    }

    public int program() {
        return program;
    }

    public int version() {
        return version;
    }

    /** The procedure with this number, or null. */
    public RpcProcedure procedure(int procedure) {
        return procedures.get(procedure);
    }

    /**
     * Whether procedure {@code procedure} was registered as non-idempotent: the dispatcher's
     * duplicate request cache answers its retransmissions (see {@link DuplicateRequestCacheLimits}).
     */
    public boolean isNonIdempotent(int procedure) {
        return nonIdempotent.contains(procedure);
    }

    @Override
    public String toString() {
        return "RpcProgram(" + Integer.toUnsignedString(program) + " v" + Integer.toUnsignedString(version)
                + ", " + procedures.size() + " procedures)";
    }

    /** Collects the procedures of one program version. */
    public static final class Builder {
        private final int program;
        private final int version;
        private final Map<Integer, RpcProcedure> procedures = new HashMap<>();
        private final Set<Integer> nonIdempotent = new HashSet<>();

        private Builder(int program, int version) {
            this.program = program;
            this.version = version;
            procedures.put(0, RpcProcedure.nullProcedure());
        }

        /** Sets procedure {@code number}. */
        public Builder procedure(int number, RpcProcedure procedure) {
            procedures.put(number, procedure);
            nonIdempotent.remove(number);
            return this;
        }

        /**
         * Sets procedure {@code number}, one that must not be executed twice for one call: its
         * replies are kept in the dispatcher's duplicate request cache, and a retransmission gets
         * the first reply (e.g. an NFSv3 REMOVE, whose second execution would fail with NOENT).
         */
        public Builder nonIdempotentProcedure(int number, RpcProcedure procedure) {
            procedures.put(number, procedure);
            nonIdempotent.add(number);
            return this;
        }

        public RpcProgram build() {
            return new RpcProgram(this);
        }
    }
}
