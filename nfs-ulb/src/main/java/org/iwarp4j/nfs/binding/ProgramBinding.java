package org.iwarp4j.nfs.binding;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The Upper-Layer Binding of one RPC program version (RFC 8166 §6): the transport it needs and one
 * {@link ProcedureBinding} per procedure. A procedure not in the table has nothing DDP-eligible.
 *
 * @param name the program's name ("NFS", "MOUNT")
 * @param program the RPC program number
 * @param versions the program versions this binding covers
 * @param transport where a server offering NFS/RDMA must offer the program
 * @param procedures one row per procedure, by number
 */
public record ProgramBinding(String name, int program, List<Integer> versions, TransportRule transport,
                             List<ProcedureBinding> procedures) {

    public ProgramBinding {
        Objects.requireNonNull(name, "name");
        versions = List.copyOf(versions);
        Objects.requireNonNull(transport, "transport");
        procedures = List.copyOf(procedures);
    }

    /** Whether this binding covers the given program and version. */
    public boolean covers(int program, int version) {
        return this.program == program && versions.contains(version);
    }

    /** The row of a procedure, if the table has one. */
    public Optional<ProcedureBinding> procedure(int number) {
        return Optional.ofNullable(row(number));
    }

    /**
     * The row of a procedure or {@code null}: a plain loop, no stream or Optional, because an
     * RPC-over-RDMA end asks this several times per RPC (docs/performance-log.md, sixth session).
     */
    private ProcedureBinding row(int number) {
        for (int i = 0; i < procedures.size(); i++) {
            ProcedureBinding p = procedures.get(i);
            if (p.number() == number) {
                return p;
            }
        }
        return null;
    }

    /**
     * Whether a procedure has a DDP-eligible item in that direction: the test a Responder applies
     * before accepting a reduced item (RFC 8166 §6.1; RFC 8267 §4, §5.2).
     */
    public boolean isDdpEligible(int procedure, DdpEligibleItem.Direction direction) {
        ProcedureBinding p = row(procedure);
        return p != null && (direction == DdpEligibleItem.Direction.ARGUMENT ? p.hasEligibleArgument()
                : p.hasEligibleResult());
    }
}
