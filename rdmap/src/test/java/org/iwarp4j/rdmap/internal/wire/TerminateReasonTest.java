package org.iwarp4j.rdmap.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.TerminateReason.Layer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The public {@link TerminateReason}: every Layer / EType / Code of RFC 5040 Fig. 9, RFC 5041 §7.2,
 * RFC 5044 §8 and RFC 6581 §8.
 */
class TerminateReasonTest {

    @ParameterizedTest(name = "0x{0}/0x{1}/0x{2} {3}")
    @CsvSource(delimiter = '|', value = {
        "0|0|00|RDMAP Local Catastrophic Error",
        "0|1|00|RDMAP Remote Protection Error: Invalid STag",
        "0|1|01|RDMAP Remote Protection Error: Base or bounds violation",
        "0|1|02|RDMAP Remote Protection Error: Access rights violation",
        "0|1|03|RDMAP Remote Protection Error: STag not associated with RDMAP Stream",
        "0|1|04|RDMAP Remote Protection Error: TO wrap",
        "0|1|09|RDMAP Remote Protection Error: STag cannot be Invalidated",
        "0|1|FF|RDMAP Remote Protection Error: Unspecified Error",
        "0|2|05|RDMAP Remote Operation Error: Invalid RDMAP version",
        "0|2|06|RDMAP Remote Operation Error: Unexpected OpCode",
        "0|2|07|RDMAP Remote Operation Error: Catastrophic error, localized to RDMAP Stream",
        "0|2|08|RDMAP Remote Operation Error: Catastrophic error, global",
        "0|2|09|RDMAP Remote Operation Error: STag cannot be Invalidated",
        "0|2|FF|RDMAP Remote Operation Error: Unspecified Error",
        "1|0|00|DDP Local Catastrophic",
        "1|1|00|DDP Tagged Buffer Error: Invalid STag",
        "1|1|01|DDP Tagged Buffer Error: Base or bounds violation",
        "1|1|02|DDP Tagged Buffer Error: STag not associated with DDP Stream",
        "1|1|03|DDP Tagged Buffer Error: TO wrap",
        "1|1|04|DDP Tagged Buffer Error: Invalid DDP version",
        "1|2|01|DDP Untagged Buffer Error: Invalid QN",
        "1|2|02|DDP Untagged Buffer Error: Invalid MSN - no buffer available",
        "1|2|03|DDP Untagged Buffer Error: Invalid MSN - MSN range is not valid",
        "1|2|04|DDP Untagged Buffer Error: Invalid MO",
        "1|2|05|DDP Untagged Buffer Error: DDP Message too long for available buffer",
        "1|2|06|DDP Untagged Buffer Error: Invalid DDP version",
        "2|0|01|LLP MPA: TCP connection closed, terminated, or lost",
        "2|0|02|LLP MPA: Received MPA CRC does not match the calculated value for the FPDU",
        "2|0|03|LLP MPA: MPA Marker and ULPDU Length fields do not agree on the start of an FPDU",
        "2|0|04|LLP MPA: Invalid MPA Request Frame or MPA Response Frame received",
        "2|0|05|LLP MPA: Local catastrophic",
        "2|0|06|LLP MPA: Insufficient IRD resources",
        "2|0|07|LLP MPA: No matching RTR option",
    })
    void everyDefinedCombinationHasItsRfcName(String layer, String etype, String code, String description) {
        // RDMAP-R-026 (Fig. 9), DDP-R-050 (§7.2), MPA2 §8 codes: the tables as constants.
        TerminateReason r = TerminateReason.of(Integer.parseInt(layer, 16), Integer.parseInt(etype, 16),
                Integer.parseInt(code, 16));
        assertThat(r.isDefined()).isTrue();
        assertThat(r.description()).isEqualTo(description);
        assertThat(TerminateReason.definedReasons()).containsOnlyOnce(r);
        assertThat(TerminateReason.definedReasons()).filteredOn(d -> d == r).hasSize(1);
    }

    @Test
    void thereAreThirtyThreeDefinedReasonsInTableOrder() {
        List<TerminateReason> all = TerminateReason.definedReasons();
        assertThat(all).hasSize(33);
        assertThat(all).filteredOn(r -> r.layer() == Layer.RDMAP).hasSize(14);
        assertThat(all).filteredOn(r -> r.layer() == Layer.DDP).hasSize(12);
        assertThat(all).filteredOn(r -> r.layer() == Layer.LLP).hasSize(7);
        assertThat(all.get(0)).isSameAs(TerminateReason.RDMAP_LOCAL_CATASTROPHIC);
        assertThat(all.get(32)).isSameAs(TerminateReason.LLP_NO_MATCHING_RTR);
        Set<String> descriptions = new HashSet<>();
        all.forEach(r -> descriptions.add(r.description()));
        assertThat(descriptions).hasSize(33);
        assertThatThrownBy(() -> all.add(TerminateReason.RDMAP_TO_WRAP)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void namedConstantsCarryTheirNumbers() {
        assertThat(TerminateReason.DDP_TAGGED_INVALID_STAG.layer()).isEqualTo(Layer.DDP);
        assertThat(TerminateReason.DDP_TAGGED_INVALID_STAG.errorType()).isEqualTo(1);
        assertThat(TerminateReason.DDP_TAGGED_INVALID_STAG.errorCode()).isEqualTo(0);
        assertThat(TerminateReason.RDMAP_UNEXPECTED_OPCODE.layerCode()).isZero();
        assertThat(TerminateReason.RDMAP_UNEXPECTED_OPCODE.errorType()).isEqualTo(2);
        assertThat(TerminateReason.RDMAP_UNEXPECTED_OPCODE.errorCode()).isEqualTo(6);
        assertThat(TerminateReason.LLP_INSUFFICIENT_IRD.layerCode()).isEqualTo(2);
        assertThat(TerminateReason.LLP_INSUFFICIENT_IRD.errorCode()).isEqualTo(6);
        assertThat(TerminateReason.rdmap(1, 0x09)).isSameAs(TerminateReason.RDMAP_PROTECTION_CANNOT_INVALIDATE);
        assertThat(TerminateReason.rdmap(2, 0x09)).isSameAs(TerminateReason.RDMAP_OPERATION_CANNOT_INVALIDATE);
        assertThat(TerminateReason.ddp(2, 0x02)).isSameAs(TerminateReason.DDP_UNTAGGED_NO_BUFFER);
    }

    @ParameterizedTest
    @EnumSource(MpaError.class)
    void everyMpaErrorIsAnLlpReasonAndBack(MpaError error) {
        // RDMAP-R-037, MPA2 §8: Layer 0x2, EType 0x0, the MPA code.
        TerminateReason r = TerminateReason.llp(error);
        assertThat(r.layer()).isEqualTo(Layer.LLP);
        assertThat(r.errorType()).isZero();
        assertThat(r.errorCode()).isEqualTo(error.code());
        assertThat(r.isDefined()).isTrue();
        assertThat(r.mpaError()).isEqualTo(error);
    }

    @Test
    void onlyLlpReasonsNameAnMpaError() {
        assertThat(TerminateReason.DDP_TAGGED_INVALID_STAG.mpaError()).isNull();
        assertThat(TerminateReason.of(2, 1, 2).mpaError()).isNull();
        assertThat(TerminateReason.of(2, 0, 0x55).mpaError()).isNull();
    }

    @Test
    void localCatastrophicHasNoCode() {
        // Fig. 9: "This error type does not have an error code. Any value in this field is acceptable."
        TerminateReason siw = TerminateReason.rdmapLocalCatastrophic(0xFF);
        assertThat(siw.isDefined()).isTrue();
        assertThat(siw.description()).isEqualTo("RDMAP Local Catastrophic Error");
        assertThat(siw.errorCodeName()).isEqualTo("None");
        assertThat(siw).isNotEqualTo(TerminateReason.RDMAP_LOCAL_CATASTROPHIC);
        assertThat(siw.errorCode()).isEqualTo(0xFF);
        assertThat(TerminateReason.RDMAP_LOCAL_CATASTROPHIC.errorCode()).isZero();
    }

    @ParameterizedTest(name = "0x{0}/0x{1}/0x{2}")
    @CsvSource({
        "0, 1, 05, RDMAP Remote Protection Error: Error Code 0x05 (not defined by RFC 5040/5041/5044/6581)",
        "0, 3, 00, RDMAP Error Type 0x3: Error Code 0x00 (not defined by RFC 5040/5041/5044/6581)",
        "1, 2, 00, DDP Untagged Buffer Error: Error Code 0x00 (not defined by RFC 5040/5041/5044/6581)",
        "1, 3, 00, DDP Reserved for the use by the LLP: Error Code 0x00 (not defined by RFC 5040/5041/5044/6581)",
        "2, 0, 08, 'LLP MPA: Error Code 0x08 (not defined by RFC 5040/5041/5044/6581; looks like siw''s swapped"
                + " layer/type: RDMAP Remote Operation Error: Catastrophic error, global)'",
        "3, 0, 00, Layer 0x3 Error Type 0x0: Error Code 0x00 (not defined by RFC 5040/5041/5044/6581)",
        "F, F, FF, Layer 0xF Error Type 0xF: Error Code 0xFF (not defined by RFC 5040/5041/5044/6581)",
    })
    void undefinedNumbersAreKeptAndSaidToBeUndefined(String layer, String etype, String code, String description) {
        // RDMAP-R-028, RDMAP-R-029: a peer's Terminate is reported whatever it carries.
        TerminateReason r = TerminateReason.of(Integer.parseInt(layer, 16), Integer.parseInt(etype, 16),
                Integer.parseInt(code, 16));
        assertThat(r.isDefined()).isFalse();
        assertThat(r.description()).isEqualTo(description);
        assertThat(TerminateReason.definedReasons()).doesNotContain(r);
        assertThat(r.layerCode()).isEqualTo(Integer.parseInt(layer, 16));
    }

    @Test
    void siwsCrcErrorWithLayerAndTypeSwappedIsNamed() {
        // Linux siw on x86 (iwarp.h bit-field order) sends LLP/MPA/CRC error (0x2/0x0/0x02) as control octets
        // 02 02: read as they stand, an RDMAP Remote Operation Error with a code Fig. 9 does not define.
        TerminateReason asSent = TerminateReason.of(0x0, 0x2, 0x02);
        assertThat(asSent.isDefined()).isFalse();
        assertThat(asSent.siwSwappedReading()).isSameAs(TerminateReason.LLP_CRC_ERROR);
        assertThat(asSent.description()).isEqualTo("RDMAP Remote Operation Error: Error Code 0x02 (not defined by"
                + " RFC 5040/5041/5044/6581; looks like siw's swapped layer/type: LLP CRC error)");
        assertThat(asSent.toString()).startsWith("0x0/0x2/0x02 ").endsWith("LLP CRC error)");
    }

    @Test
    void onlyUndefinedReadingsAreReinterpreted() {
        // 0x0/0x1/0x00 and 0x1/0x0/0x00 are both defined: a swap cannot be told apart, so none is claimed.
        assertThat(TerminateReason.RDMAP_INVALID_STAG.siwSwappedReading()).isNull();
        assertThat(TerminateReason.DDP_LOCAL_CATASTROPHIC.siwSwappedReading()).isNull();
        // Undefined both ways: nothing to suggest.
        assertThat(TerminateReason.of(0x3, 0x0, 0x00).siwSwappedReading()).isNull();
        // siw's DDP untagged-buffer errors (0x1/0x2) arrive as 0x2/0x1, an LLP error type that does not exist.
        assertThat(TerminateReason.of(0x2, 0x1, 0x01).siwSwappedReading()).isSameAs(TerminateReason.DDP_UNTAGGED_INVALID_QN);
    }

    @Test
    void numbersMustFitTheirFields() {
        assertThatThrownBy(() -> TerminateReason.of(16, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateReason.of(0, 16, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateReason.of(0, 0, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TerminateReason.of(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void layersByCode() {
        assertThat(Layer.fromCode(0)).isEqualTo(Layer.RDMAP);
        assertThat(Layer.fromCode(1)).isEqualTo(Layer.DDP);
        assertThat(Layer.fromCode(2)).isEqualTo(Layer.LLP);
        assertThat(Layer.fromCode(3)).isNull();
        assertThat(TerminateReason.of(7, 0, 0).layer()).isNull();
    }

    @Test
    void valueSemanticsAndToString() {
        assertThat(TerminateReason.of(1, 1, 0)).isSameAs(TerminateReason.DDP_TAGGED_INVALID_STAG);
        assertThat(TerminateReason.of(3, 0, 0)).isEqualTo(TerminateReason.of(3, 0, 0))
                .hasSameHashCodeAs(TerminateReason.of(3, 0, 0));
        assertThat(TerminateReason.DDP_TAGGED_INVALID_STAG.toString())
                .isEqualTo("0x1/0x1/0x00 DDP Tagged Buffer Error: Invalid STag");
        assertThat(TerminateReason.LLP_CRC_ERROR.layerName()).isEqualTo("LLP");
        assertThat(TerminateReason.LLP_CRC_ERROR.errorTypeName()).isEqualTo("MPA");
    }
}
