package org.iwarp4j.rdmap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.mpa.MpaError;

/**
 * Why an RDMAP Stream was terminated: the Layer, Error Type and Error Code of a Terminate
 * message (RFC 5040 §4.8, Fig. 8 and Fig. 9), immutable.
 *
 * <p>The three numbers are what a Terminate carries on the wire (4, 4 and 8 bits). Their meaning
 * comes from three tables, each mirrored here by constants in the RFC's order:
 *
 * <ul>
 *   <li>Layer {@link Layer#RDMAP} (0x0): RFC 5040 §4.8 Fig. 9 — {@code RDMAP_*};
 *   <li>Layer {@link Layer#DDP} (0x1): RFC 5041 §7.2 — {@code DDP_*};
 *   <li>Layer {@link Layer#LLP} (0x2), Error Type 0x0 = MPA: RFC 5044 §8 codes 0x01-0x04 and
 *       RFC 6581 §8 codes 0x05-0x07 — {@code LLP_*}, the same numbers as {@link MpaError}.
 * </ul>
 *
 * <p>A Terminate received from a peer can carry any numbers; {@link #of(int, int, int)} accepts
 * them all and {@link #isDefined()} says whether the RFCs assign a meaning. An RDMAP Local
 * Catastrophic Error has no error code ("any value in this field is acceptable", Fig. 9): every
 * code under Layer 0x0 / Error Type 0x0 is defined and means the same, although {@link
 * #equals(Object)} still compares the code as it was sent (Linux siw sends 0xFF).
 */
public final class TerminateReason {

    /** The layer that detected the error (RFC 5040 Fig. 9, first column). */
    public enum Layer {
        /** 0x0: RDMAP, error types and codes of RFC 5040 Fig. 9. */
        RDMAP(0x0, "RDMAP"),
        /** 0x1: DDP, error types and codes of RFC 5041 §7.2. */
        DDP(0x1, "DDP"),
        /** 0x2: the LLP below DDP; for MPA, error type 0x0 and the codes of RFC 5044 §8 / RFC 6581 §8. */
        LLP(0x2, "LLP");

        private final int code;
        private final String label;

        Layer(int code, String label) {
            this.code = code;
            this.label = label;
        }

        /** The 4-bit value in the Terminate Control field. */
        public int code() {
            return code;
        }

        /** The layer with this 4-bit value, or {@code null} if the RFC assigns none. */
        public static Layer fromCode(int code) {
            for (Layer l : values()) {
                if (l.code == code) {
                    return l;
                }
            }
            return null;
        }
    }

    private static final Map<Integer, TerminateReason> DEFINED = new LinkedHashMap<>();

    // ---- Layer 0x0 RDMAP, RFC 5040 §4.8 Fig. 9 ----

    /**
     * RDMAP / Local Catastrophic Error (0x0/0x0). The type "does not have an error code"; this
     * constant sends 0x00, {@link #rdmapLocalCatastrophic(int)} any other value.
     */
    public static final TerminateReason RDMAP_LOCAL_CATASTROPHIC = define(0x0, 0x0, 0x00, null);
    /** RDMAP / Remote Protection Error / Invalid STag (0x0/0x1/0x00). */
    public static final TerminateReason RDMAP_INVALID_STAG = define(0x0, 0x1, 0x00, "Invalid STag");
    /** RDMAP / Remote Protection Error / Base or bounds violation (0x0/0x1/0x01). */
    public static final TerminateReason RDMAP_BASE_OR_BOUNDS_VIOLATION =
            define(0x0, 0x1, 0x01, "Base or bounds violation");
    /** RDMAP / Remote Protection Error / Access rights violation (0x0/0x1/0x02). */
    public static final TerminateReason RDMAP_ACCESS_RIGHTS_VIOLATION =
            define(0x0, 0x1, 0x02, "Access rights violation");
    /** RDMAP / Remote Protection Error / STag not associated with RDMAP Stream (0x0/0x1/0x03). */
    public static final TerminateReason RDMAP_STAG_NOT_ASSOCIATED =
            define(0x0, 0x1, 0x03, "STag not associated with RDMAP Stream");
    /** RDMAP / Remote Protection Error / TO wrap (0x0/0x1/0x04). */
    public static final TerminateReason RDMAP_TO_WRAP = define(0x0, 0x1, 0x04, "TO wrap");
    /** RDMAP / Remote Protection Error / STag cannot be Invalidated (0x0/0x1/0x09). */
    public static final TerminateReason RDMAP_PROTECTION_CANNOT_INVALIDATE =
            define(0x0, 0x1, 0x09, "STag cannot be Invalidated");
    /** RDMAP / Remote Protection Error / Unspecified Error (0x0/0x1/0xFF). */
    public static final TerminateReason RDMAP_PROTECTION_UNSPECIFIED =
            define(0x0, 0x1, 0xFF, "Unspecified Error");
    /** RDMAP / Remote Operation Error / Invalid RDMAP version (0x0/0x2/0x05). */
    public static final TerminateReason RDMAP_INVALID_VERSION = define(0x0, 0x2, 0x05, "Invalid RDMAP version");
    /** RDMAP / Remote Operation Error / Unexpected OpCode (0x0/0x2/0x06). */
    public static final TerminateReason RDMAP_UNEXPECTED_OPCODE = define(0x0, 0x2, 0x06, "Unexpected OpCode");
    /** RDMAP / Remote Operation Error / Catastrophic error, localized to RDMAP Stream (0x0/0x2/0x07). */
    public static final TerminateReason RDMAP_CATASTROPHIC_STREAM =
            define(0x0, 0x2, 0x07, "Catastrophic error, localized to RDMAP Stream");
    /** RDMAP / Remote Operation Error / Catastrophic error, global (0x0/0x2/0x08). */
    public static final TerminateReason RDMAP_CATASTROPHIC_GLOBAL =
            define(0x0, 0x2, 0x08, "Catastrophic error, global");
    /** RDMAP / Remote Operation Error / STag cannot be Invalidated (0x0/0x2/0x09). */
    public static final TerminateReason RDMAP_OPERATION_CANNOT_INVALIDATE =
            define(0x0, 0x2, 0x09, "STag cannot be Invalidated");
    /** RDMAP / Remote Operation Error / Unspecified Error (0x0/0x2/0xFF). */
    public static final TerminateReason RDMAP_OPERATION_UNSPECIFIED =
            define(0x0, 0x2, 0xFF, "Unspecified Error");

    // ---- Layer 0x1 DDP, RFC 5041 §7.2 ----

    /** DDP / Local Catastrophic (0x1/0x0/0x00). */
    public static final TerminateReason DDP_LOCAL_CATASTROPHIC = define(0x1, 0x0, 0x00, "Local Catastrophic");
    /** DDP / Tagged Buffer Error / Invalid STag (0x1/0x1/0x00). */
    public static final TerminateReason DDP_TAGGED_INVALID_STAG = define(0x1, 0x1, 0x00, "Invalid STag");
    /** DDP / Tagged Buffer Error / Base or bounds violation (0x1/0x1/0x01). */
    public static final TerminateReason DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION =
            define(0x1, 0x1, 0x01, "Base or bounds violation");
    /** DDP / Tagged Buffer Error / STag not associated with DDP Stream (0x1/0x1/0x02). */
    public static final TerminateReason DDP_TAGGED_STAG_NOT_ASSOCIATED =
            define(0x1, 0x1, 0x02, "STag not associated with DDP Stream");
    /** DDP / Tagged Buffer Error / TO wrap (0x1/0x1/0x03). */
    public static final TerminateReason DDP_TAGGED_TO_WRAP = define(0x1, 0x1, 0x03, "TO wrap");
    /** DDP / Tagged Buffer Error / Invalid DDP version (0x1/0x1/0x04). */
    public static final TerminateReason DDP_TAGGED_INVALID_VERSION = define(0x1, 0x1, 0x04, "Invalid DDP version");
    /** DDP / Untagged Buffer Error / Invalid QN (0x1/0x2/0x01). */
    public static final TerminateReason DDP_UNTAGGED_INVALID_QN = define(0x1, 0x2, 0x01, "Invalid QN");
    /** DDP / Untagged Buffer Error / Invalid MSN - no buffer available (0x1/0x2/0x02). */
    public static final TerminateReason DDP_UNTAGGED_NO_BUFFER =
            define(0x1, 0x2, 0x02, "Invalid MSN - no buffer available");
    /** DDP / Untagged Buffer Error / Invalid MSN - MSN range is not valid (0x1/0x2/0x03). */
    public static final TerminateReason DDP_UNTAGGED_MSN_RANGE =
            define(0x1, 0x2, 0x03, "Invalid MSN - MSN range is not valid");
    /** DDP / Untagged Buffer Error / Invalid MO (0x1/0x2/0x04). */
    public static final TerminateReason DDP_UNTAGGED_INVALID_MO = define(0x1, 0x2, 0x04, "Invalid MO");
    /** DDP / Untagged Buffer Error / DDP Message too long for available buffer (0x1/0x2/0x05). */
    public static final TerminateReason DDP_UNTAGGED_MESSAGE_TOO_LONG =
            define(0x1, 0x2, 0x05, "DDP Message too long for available buffer");
    /** DDP / Untagged Buffer Error / Invalid DDP version (0x1/0x2/0x06). */
    public static final TerminateReason DDP_UNTAGGED_INVALID_VERSION =
            define(0x1, 0x2, 0x06, "Invalid DDP version");

    // ---- Layer 0x2 LLP, Error Type 0x0 MPA: RFC 5044 §8, RFC 6581 §8 ----

    /** LLP / MPA / TCP connection closed, terminated or lost (0x2/0x0/0x01, RFC 5044 §8 code 1). */
    public static final TerminateReason LLP_CONNECTION_LOST =
            define(0x2, 0x0, 0x01, "TCP connection closed, terminated, or lost");
    /** LLP / MPA / Received MPA CRC does not match (0x2/0x0/0x02, RFC 5044 §8 code 2). */
    public static final TerminateReason LLP_CRC_ERROR =
            define(0x2, 0x0, 0x02, "Received MPA CRC does not match the calculated value for the FPDU");
    /** LLP / MPA / Marker and ULPDU Length disagree (0x2/0x0/0x03, RFC 5044 §8 code 3). */
    public static final TerminateReason LLP_MARKER_ERROR =
            define(0x2, 0x0, 0x03, "MPA Marker and ULPDU Length fields do not agree on the start of an FPDU");
    /** LLP / MPA / Invalid MPA Request or Reply frame (0x2/0x0/0x04, RFC 5044 §8 code 4). */
    public static final TerminateReason LLP_INVALID_STARTUP_FRAME =
            define(0x2, 0x0, 0x04, "Invalid MPA Request Frame or MPA Response Frame received");
    /** LLP / MPA / Local catastrophic (0x2/0x0/0x05, RFC 6581 §8). */
    public static final TerminateReason LLP_LOCAL_CATASTROPHIC = define(0x2, 0x0, 0x05, "Local catastrophic");
    /** LLP / MPA / Insufficient IRD resources (0x2/0x0/0x06, RFC 6581 §8). */
    public static final TerminateReason LLP_INSUFFICIENT_IRD =
            define(0x2, 0x0, 0x06, "Insufficient IRD resources");
    /** LLP / MPA / No matching RTR option (0x2/0x0/0x07, RFC 6581 §8). */
    public static final TerminateReason LLP_NO_MATCHING_RTR = define(0x2, 0x0, 0x07, "No matching RTR option");

    private static final List<TerminateReason> DEFINED_LIST =
            Collections.unmodifiableList(new ArrayList<>(DEFINED.values()));

    private final int layer;
    private final int errorType;
    private final int errorCode;
    private final String codeName;

    private TerminateReason(int layer, int errorType, int errorCode, String codeName) {
        this.layer = layer;
        this.errorType = errorType;
        this.errorCode = errorCode;
        this.codeName = codeName;
    }

    private static TerminateReason define(int layer, int errorType, int errorCode, String codeName) {
        TerminateReason r = new TerminateReason(layer, errorType, errorCode, codeName);
        DEFINED.put(key(layer, errorType, errorCode), r);
        return r;
    }

    private static int key(int layer, int errorType, int errorCode) {
        return layer << 12 | errorType << 8 | errorCode;
    }

    /**
     * The reason with these numbers: the constant if the RFCs define the combination, otherwise a
     * new instance that {@link #isDefined()} reports as such (or, for an RDMAP Local Catastrophic
     * Error with a non-zero code, as defined).
     *
     * @throws IllegalArgumentException if a number does not fit its field (4, 4 and 8 bits)
     */
    public static TerminateReason of(int layer, int errorType, int errorCode) {
        if ((layer & ~0xF) != 0 || (errorType & ~0xF) != 0 || (errorCode & ~0xFF) != 0) {
            throw new IllegalArgumentException(String.format(
                    "layer and error type are 4 bits, error code 8 bits: 0x%X/0x%X/0x%X", layer, errorType, errorCode));
        }
        TerminateReason r = DEFINED.get(key(layer, errorType, errorCode));
        return r != null ? r : new TerminateReason(layer, errorType, errorCode, null);
    }

    /** An RDMAP reason (Layer 0x0) with these numbers; see {@link #of(int, int, int)}. */
    public static TerminateReason rdmap(int errorType, int errorCode) {
        return of(Layer.RDMAP.code, errorType, errorCode);
    }

    /**
     * A DDP reason (Layer 0x1) with the RFC 5041 §7.2 Error Type and Error Code the DDP layer
     * reported; see {@link #of(int, int, int)}.
     */
    public static TerminateReason ddp(int errorType, int errorCode) {
        return of(Layer.DDP.code, errorType, errorCode);
    }

    /** The LLP reason for an MPA error: Layer 0x2, Error Type 0x0 (MPA), Error Code {@link MpaError#code()}. */
    public static TerminateReason llp(MpaError error) {
        return of(Layer.LLP.code, 0x0, error.code());
    }

    /** RDMAP Local Catastrophic Error carrying {@code errorCode}, which the receiver ignores (Fig. 9). */
    public static TerminateReason rdmapLocalCatastrophic(int errorCode) {
        return of(Layer.RDMAP.code, 0x0, errorCode);
    }

    /** Every combination the RFCs define, in table order (RDMAP, DDP, LLP); 33 reasons. */
    public static List<TerminateReason> definedReasons() {
        return DEFINED_LIST;
    }

    /** The 4-bit Layer as sent. */
    public int layerCode() {
        return layer;
    }

    /** The layer, or {@code null} if the Layer value is not one the RFCs assign. */
    public Layer layer() {
        return Layer.fromCode(layer);
    }

    /** The 4-bit Error Type (EType) as sent. */
    public int errorType() {
        return errorType;
    }

    /** The 8-bit Error Code as sent. */
    public int errorCode() {
        return errorCode;
    }

    /** How {@link #description()} introduces {@link #siwSwappedReading()}. */
    public static final String SIW_SWAPPED_PREFIX = "looks like siw's swapped layer/type: ";

    /**
     * The reason read with Layer and Error Type exchanged, when this reading is not defined by the
     * RFCs and that one is; otherwise {@code null}.
     *
     * <p>Why: Linux siw builds the Terminate Control field from a C bit-field ({@code struct
     * iwarp_terminate} in {@code iwarp.h}, layer declared first). On a little-endian host the first
     * field takes the low nibble of the first octet, so Layer and EType arrive swapped (and M, D, R
     * land in the reserved bits). siw's MPA CRC error, LLP / MPA / 0x02, then arrives as {@code 02 02}:
     * an RDMAP Remote Operation Error with a code Fig. 9 does not define. Only readings that cannot be
     * taken as they stand are reinterpreted; a swap that yields another defined reason (0x0/0x1 versus
     * 0x1/0x0) cannot be told apart and is left alone.
     */
    public TerminateReason siwSwappedReading() {
        if (isDefined() || layer == errorType) {
            return null;
        }
        TerminateReason swapped = of(errorType, layer, errorCode);
        return swapped.isDefined() ? swapped : null;
    }

    /** A short name for {@link #SIW_SWAPPED_PREFIX} hints: {@code LLP CRC error}, else the description. */
    String shortName() {
        MpaError e = mpaError();
        if (e == null) {
            return description();
        }
        return "LLP " + switch (e) {
            case CONNECTION_LOST -> "connection lost";
            case CRC_ERROR -> "CRC error";
            case MARKER_ERROR -> "marker error";
            case INVALID_STARTUP_FRAME -> "invalid startup frame";
            case LOCAL_CATASTROPHIC -> "local catastrophic error";
            case INSUFFICIENT_IRD -> "insufficient IRD";
            case NO_MATCHING_RTR -> "no matching RTR option";
        };
    }

    /** {@code true} if the RFCs give this Layer / Error Type / Error Code a meaning. */
    public boolean isDefined() {
        return codeName != null || isRdmapLocalCatastrophic();
    }

    private boolean isRdmapLocalCatastrophic() {
        return layer == 0x0 && errorType == 0x0;
    }

    /** The MPA error this reason reports (Layer LLP, Error Type MPA), or {@code null}. */
    public MpaError mpaError() {
        return layer == Layer.LLP.code && errorType == 0x0 ? MpaError.fromCode(errorCode) : null;
    }

    /** The layer's name: {@code RDMAP}, {@code DDP}, {@code LLP}, or {@code Layer 0xN}. */
    public String layerName() {
        Layer l = layer();
        return l != null ? l.label : String.format("Layer 0x%X", layer);
    }

    /** The error type's name in its layer's table, or {@code Error Type 0xN} if it has none. */
    public String errorTypeName() {
        String name = null;
        switch (layer) {
            case 0x0:
                name = errorType == 0x0 ? "Local Catastrophic Error"
                        : errorType == 0x1 ? "Remote Protection Error"
                        : errorType == 0x2 ? "Remote Operation Error" : null;
                break;
            case 0x1:
                name = errorType == 0x0 ? "Local Catastrophic"
                        : errorType == 0x1 ? "Tagged Buffer Error"
                        : errorType == 0x2 ? "Untagged Buffer Error"
                        : errorType == 0x3 ? "Reserved for the use by the LLP" : null;
                break;
            case 0x2:
                name = errorType == 0x0 ? "MPA" : null;
                break;
            default:
                break;
        }
        return name != null ? name : String.format("Error Type 0x%X", errorType);
    }

    /**
     * The error code's name in the RFC table, {@code None} for an RDMAP Local Catastrophic Error,
     * or {@code Error Code 0xNN} if the table has none.
     */
    public String errorCodeName() {
        if (codeName != null) {
            return codeName;
        }
        return isRdmapLocalCatastrophic() ? "None" : String.format("Error Code 0x%02X", errorCode);
    }

    /**
     * A human-readable description in the RFCs' words, e.g. {@code DDP Tagged Buffer Error: Invalid
     * STag}, {@code RDMAP Local Catastrophic Error}, {@code LLP MPA: Insufficient IRD resources};
     * undefined numbers are named as such, with {@link #siwSwappedReading() siw's reading} when there
     * is one ({@code ... (not defined by RFC 5040/5041/5044/6581; looks like siw's swapped layer/type:
     * LLP CRC error)}).
     */
    public String description() {
        StringBuilder sb = new StringBuilder(layerName()).append(' ').append(errorTypeName());
        if (isRdmapLocalCatastrophic() || layer == 0x1 && errorType == 0x0 && errorCode == 0x00) {
            return sb.toString();
        }
        sb.append(": ").append(errorCodeName());
        if (!isDefined()) {
            TerminateReason swapped = siwSwappedReading();
            sb.append(" (not defined by RFC 5040/5041/5044/6581")
                    .append(swapped == null ? "" : "; " + SIW_SWAPPED_PREFIX + swapped.shortName()).append(')');
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TerminateReason)) {
            return false;
        }
        TerminateReason that = (TerminateReason) o;
        return layer == that.layer && errorType == that.errorType && errorCode == that.errorCode;
    }

    @Override
    public int hashCode() {
        return key(layer, errorType, errorCode);
    }

    /** {@code 0xL/0xT/0xCC} and the description, e.g. {@code 0x1/0x1/0x00 DDP Tagged Buffer Error: Invalid STag}. */
    @Override
    public String toString() {
        return String.format("0x%X/0x%X/0x%02X %s", layer, errorType, errorCode, description());
    }
}
