package org.iwarp4j.oncrpc;

import java.util.HashMap;
import java.util.Map;

/**
 * One version of a server program (RFC 5531 §7): its program number, version number and
 * procedures. Register it with an {@link RpcDispatcher}; several versions of one program are
 * several {@code RpcProgram}s.
 */
public final class RpcProgram {

    private final int program;
    private final int version;
    private final Map<Integer, RpcProcedure> procedures;

    private RpcProgram(Builder builder) {
        this.program = builder.program;
        this.version = builder.version;
        this.procedures = Map.copyOf(builder.procedures);
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

        private Builder(int program, int version) {
            this.program = program;
            this.version = version;
            procedures.put(0, RpcProcedure.nullProcedure());
        }

        /** Sets procedure {@code number}. */
        public Builder procedure(int number, RpcProcedure procedure) {
            procedures.put(number, procedure);
            return this;
        }

        public RpcProgram build() {
            return new RpcProgram(this);
        }
    }
}
