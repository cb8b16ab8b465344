package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.nfs.binding.DdpEligibleItem.Direction;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Unpredictable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 8267 §5, one test per auxiliary program and per NFSACL procedure. */
class AuxiliaryProgramBindingTest {

    /** ULB-R-010: MOUNT, NLM and NSM MUST be offered over TCP; nothing in them is DDP-eligible. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "MOUNT, 100005, 2, 3, TCP",
            "NLM,   100021, 1, 4, TCP",
            "NSM,   100024, 1, 1, TCP",
            "NFSACL, 100227, 1, 3, SAME_CONNECTION_AS_NFS"})
    void programRow(String name, int program, int lowVersion, int highVersion, TransportRule transport) {
        ProgramBinding binding = AuxiliaryProgramBinding.ALL.stream().filter(b -> b.name().equals(name))
                .findFirst().orElseThrow();
        assertThat(binding.program()).isEqualTo(program);
        assertThat(binding.covers(program, lowVersion)).isTrue();
        assertThat(binding.covers(program, highVersion)).isTrue();
        assertThat(binding.transport()).isEqualTo(transport);
        for (int procedure = 0; procedure < 32; procedure++) {
            assertThat(binding.isDdpEligible(procedure, Direction.ARGUMENT)).isFalse();
            assertThat(binding.isDdpEligible(procedure, Direction.RESULT)).isFalse();
        }
    }

    /**
     * ULB-R-011, ULB-R-003: NFSACL shares the NFS connection, has nothing eligible, and GETACL —
     * whose ACLs no protocol limit bounds — alone may use short Reply chunk retry.
     * Words: post_op_attr 1 + 21, NFSv2 fattr 17.
     */
    @ParameterizedTest(name = "NFSACL {1}")
    @CsvSource(delimiter = '|', value = {
            "0 | NULL    | false | 0",
            "1 | GETACL  | true  | 1 + 22 + 1",
            "2 | SETACL  | false | 1 + 22",
            "3 | GETATTR | false | 1 + 17",
            "4 | ACCESS  | false | 1 + 17 + 1"})
    void nfsaclRow(int procedure, String name, boolean unpredictable, String fixedWords) {
        ProcedureBinding row = AuxiliaryProgramBinding.NFSACL.procedure(procedure).orElseThrow();
        assertThat(row.name()).isEqualTo(name);
        assertThat(row.ddpEligible()).isEmpty();
        assertThat(row.shortReplyChunkRetry()).isEqualTo(unpredictable);
        assertThat(row.replySize().predictable()).isEqualTo(!unpredictable);
        assertThat(row.replySize().fixedOctets()).isEqualTo(XdrWords.octets(fixedWords));
        if (unpredictable) {
            assertThat(row.replySize()).isInstanceOf(Unpredictable.class);
            // The client's own ACL limit sizes the reply (§5.2).
            ReplySizeLimits limits = new ReplySizeLimits(4096, 10_000, java.util.OptionalLong.empty());
            assertThat(row.maxResultOctets(0, limits)).isEqualTo(XdrWords.octets(fixedWords) + 10_000);
        }
    }
}
