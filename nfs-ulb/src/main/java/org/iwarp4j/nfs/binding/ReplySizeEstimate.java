package org.iwarp4j.nfs.binding;

import java.util.List;
import java.util.Objects;

/**
 * How a client predicts the largest result of one procedure or NFSv4 operation (RFC 8267 §3), in
 * XDR octets of the result alone: from the status word to the end of the result, without the RPC
 * reply header. A result is a fixed part plus at most one variable part; the variable part is
 * what a DDP-eligible result item (READ data, READLINK path) is, so a Write chunk holds exactly
 * {@link #variableOctets} octets and the Payload stream keeps {@link #fixedOctets}.
 *
 * <p>The four kinds are the four criteria of RFC 8267 §3: {@link Fixed} (the XDR definition bounds
 * everything), {@link PlusCount} (the client asked for a portion or a number of results: READ
 * count, READDIR count), {@link PlusPath} (the client knows how long a path can be) and
 * {@link Unpredictable} (no protocol bound: §5.2, §6.2; the client's own limit or the session's
 * ca_maxresponsesize applies).
 */
public sealed interface ReplySizeEstimate {

    /** Octets that do not depend on the arguments, including the length word of the variable part. */
    int fixedOctets();

    /** Octets of the variable part, without XDR roundup; 0 for {@link Fixed}. */
    long variableOctets(long countArgument, ReplySizeLimits limits);

    /** The largest result: the fixed part, the variable part rounded up to 4, or the largest error arm. */
    long maxOctets(long countArgument, ReplySizeLimits limits);

    /**
     * The largest result left in the Payload stream when the variable part has gone to a Write
     * chunk (only its length word stays, RFC 8166 §3.4.4.1): the fixed part or the largest arm
     * without the variable part, whichever is larger.
     */
    default long reducedMaxOctets() {
        return fixedOctets();
    }

    /** Whether the XDR definition and the arguments alone bound the result (RFC 8267 §3). */
    default boolean predictable() {
        return true;
    }

    /** XDR roundup of an opaque or string body to a multiple of four octets (RFC 4506 §4.10). */
    static long roundUp(long octets) {
        return (octets + 3) & ~3L;
    }

    /** A result whose XDR definition bounds every item; {@code octets} is its largest arm. */
    record Fixed(int octets) implements ReplySizeEstimate {
        public Fixed {
            if (octets < 0) {
                throw new IllegalArgumentException("octets < 0: " + octets);
            }
        }

        @Override
        public int fixedOctets() {
            return octets;
        }

        @Override
        public long variableOctets(long countArgument, ReplySizeLimits limits) {
            return 0;
        }

        @Override
        public long maxOctets(long countArgument, ReplySizeLimits limits) {
            return octets;
        }
    }

    /**
     * A result with a part the client bounds through an argument: READ's count (octets of data),
     * READDIR's count (octets of the whole resok), GETDEVICELIST's gdla_maxdevices (devices of 16
     * octets). The variable part is {@code min(count, countLimit) * octetsPerUnit}.
     *
     * @param fixedOctets octets besides the variable part
     * @param countArgument the argument's name in the RFC's XDR
     * @param octetsPerUnit octets per counted unit
     * @param countLimit the protocol's bound on the count (NFSv2 MAXDATA), or {@link Long#MAX_VALUE}
     * @param minimumOctets the largest arm without the variable part (an error arm with attributes)
     */
    record PlusCount(int fixedOctets, String countArgument, int octetsPerUnit, long countLimit, int minimumOctets)
            implements ReplySizeEstimate {
        public PlusCount {
            Objects.requireNonNull(countArgument, "countArgument");
            if (fixedOctets < 0 || octetsPerUnit <= 0 || countLimit < 0 || minimumOctets < 0) {
                throw new IllegalArgumentException("negative size");
            }
        }

        @Override
        public long variableOctets(long countArgument, ReplySizeLimits limits) {
            if (countArgument < 0) {
                throw new IllegalArgumentException(this.countArgument + " < 0: " + countArgument);
            }
            return Math.min(countArgument, countLimit) * octetsPerUnit;
        }

        @Override
        public long maxOctets(long countArgument, ReplySizeLimits limits) {
            return Math.max(fixedOctets + ReplySizeEstimate.roundUp(variableOctets(countArgument, limits)),
                    minimumOctets);
        }

        @Override
        public long reducedMaxOctets() {
            return Math.max(fixedOctets, minimumOctets);
        }
    }

    /**
     * A result carrying a pathname the protocol does not bound (NFSv3 nfspath3, NFSv4 linktext4):
     * the client uses its own largest path ({@link ReplySizeLimits#maxPathLength()}); or one the
     * protocol bounds (NFSv2 path&lt;MAXPATHLEN&gt;), given as {@code protocolLimit}.
     */
    record PlusPath(int fixedOctets, int protocolLimit, int minimumOctets) implements ReplySizeEstimate {
        /** No protocol limit: the client's own applies. */
        public static final int NO_PROTOCOL_LIMIT = Integer.MAX_VALUE;

        @Override
        public long variableOctets(long countArgument, ReplySizeLimits limits) {
            return Math.min(limits.maxPathLength(), protocolLimit);
        }

        @Override
        public long maxOctets(long countArgument, ReplySizeLimits limits) {
            return Math.max(fixedOctets + ReplySizeEstimate.roundUp(variableOctets(countArgument, limits)),
                    minimumOctets);
        }

        @Override
        public long reducedMaxOctets() {
            return Math.max(fixedOctets, minimumOctets);
        }
    }

    /**
     * A result with items no protocol limit bounds (RFC 8267 §5.2 ACLs; §6.2 attrlist4, ACLs,
     * fs_locations, pNFS layout bodies; and strings such as an ACE's who). The client allots
     * {@link ReplySizeLimits#unpredictableItemOctets()} for them: its own architectural limit, or for
     * NFSv4.1 and later the session's ca_maxresponsesize (§6.2.2).
     *
     * @param fixedOctets octets besides the unpredictable items
     * @param items the unbounded items, in the RFC's words
     */
    record Unpredictable(int fixedOctets, List<String> items) implements ReplySizeEstimate {
        public Unpredictable {
            items = List.copyOf(items);
            if (items.isEmpty()) {
                throw new IllegalArgumentException("an unpredictable result names its unbounded items");
            }
        }

        @Override
        public long variableOctets(long countArgument, ReplySizeLimits limits) {
            return limits.unpredictableItemOctets();
        }

        @Override
        public long maxOctets(long countArgument, ReplySizeLimits limits) {
            return fixedOctets + ReplySizeEstimate.roundUp(variableOctets(countArgument, limits));
        }

        @Override
        public boolean predictable() {
            return false;
        }
    }
}
