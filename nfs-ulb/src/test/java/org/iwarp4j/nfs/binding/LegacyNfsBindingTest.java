package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.iwarp4j.nfs.binding.DdpEligibleItem.Direction;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusCount;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 8267 §4 and §4.1, one test per row of the NFSv2 and NFSv3 tables: the DDP-eligible items
 * (ULB-R-006, RPC-R-015), the largest result re-derived here word by word from the XDR of RFC 1094
 * and RFC 1813 (ULB-R-001), and no short Reply chunk retry (ULB-R-004, ULB-R-008).
 */
class LegacyNfsBindingTest {

    private static final ReplySizeLimits LIMITS = ReplySizeLimits.defaults();

    /*
     * NFSv2 words: fattr 17 (11 words + 3 timevals of 2), fhandle 8 (32 octets).
     * Columns: procedure, name, eligible argument, eligible result, kind, fixed words, minimum words.
     */
    @ParameterizedTest(name = "NFSv2 {1}")
    @CsvSource(delimiter = '|', value = {
            "0  | NULL       | false | false | fixed | 0            | 0",
            "1  | GETATTR    | false | false | fixed | 1 + 17       | 0",
            "2  | SETATTR    | false | false | fixed | 1 + 17       | 0",
            "3  | ROOT       | false | false | fixed | 0            | 0",
            "4  | LOOKUP     | false | false | fixed | 1 + 8 + 17   | 0",
            "5  | READLINK   | false | true  | path  | 1 + 1        | 1",
            "6  | READ       | false | true  | count | 1 + 17 + 1   | 1",
            "7  | WRITECACHE | false | false | fixed | 0            | 0",
            "8  | WRITE      | true  | false | fixed | 1 + 17       | 0",
            "9  | CREATE     | false | false | fixed | 1 + 8 + 17   | 0",
            "10 | REMOVE     | false | false | fixed | 1            | 0",
            "11 | RENAME     | false | false | fixed | 1            | 0",
            "12 | LINK       | false | false | fixed | 1            | 0",
            "13 | SYMLINK    | true  | false | fixed | 1            | 0",
            "14 | MKDIR      | false | false | fixed | 1 + 8 + 17   | 0",
            "15 | RMDIR      | false | false | fixed | 1            | 0",
            "16 | READDIR    | false | false | count | 1            | 1",
            "17 | STATFS     | false | false | fixed | 1 + 5        | 0"})
    void nfsV2Row(int procedure, String name, boolean eligibleArgument, boolean eligibleResult, String kind,
                  String fixedWords, String minimumWords) {
        checkRow(LegacyNfsBinding.NFS_V2, procedure, name, eligibleArgument, eligibleResult, kind, fixedWords,
                minimumWords);
    }

    /*
     * NFSv3 words: fattr3 21, post_op_attr 1 + 21, pre_op_attr 1 + 6, wcc_data 7 + 22 = 29,
     * nfs_fh3 1 + 16, post_op_fh3 1 + 17, verifiers 2.
     */
    @ParameterizedTest(name = "NFSv3 {1}")
    @CsvSource(delimiter = '|', value = {
            "0  | NULL        | false | false | fixed | 0                  | 0",
            "1  | GETATTR     | false | false | fixed | 1 + 21             | 0",
            "2  | SETATTR     | false | false | fixed | 1 + 29             | 0",
            "3  | LOOKUP      | false | false | fixed | 1 + 17 + 22 + 22   | 0",
            "4  | ACCESS      | false | false | fixed | 1 + 22 + 1         | 0",
            "5  | READLINK    | false | true  | path  | 1 + 22 + 1         | 1 + 22",
            "6  | READ        | false | true  | count | 1 + 22 + 1 + 1 + 1 | 1 + 22",
            "7  | WRITE       | true  | false | fixed | 1 + 29 + 1 + 1 + 2 | 0",
            "8  | CREATE      | false | false | fixed | 1 + 18 + 22 + 29   | 0",
            "9  | MKDIR       | false | false | fixed | 1 + 18 + 22 + 29   | 0",
            "10 | SYMLINK     | true  | false | fixed | 1 + 18 + 22 + 29   | 0",
            "11 | MKNOD       | false | false | fixed | 1 + 18 + 22 + 29   | 0",
            "12 | REMOVE      | false | false | fixed | 1 + 29             | 0",
            "13 | RMDIR       | false | false | fixed | 1 + 29             | 0",
            "14 | RENAME      | false | false | fixed | 1 + 29 + 29        | 0",
            "15 | LINK        | false | false | fixed | 1 + 22 + 29        | 0",
            "16 | READDIR     | false | false | count | 1                  | 1 + 22",
            "17 | READDIRPLUS | false | false | count | 1                  | 1 + 22",
            "18 | FSSTAT      | false | false | fixed | 1 + 22 + 6*2 + 1   | 0",
            "19 | FSINFO      | false | false | fixed | 1 + 22 + 7 + 2 + 2 + 1 | 0",
            "20 | PATHCONF    | false | false | fixed | 1 + 22 + 2 + 4     | 0",
            "21 | COMMIT      | false | false | fixed | 1 + 29 + 2         | 0"})
    void nfsV3Row(int procedure, String name, boolean eligibleArgument, boolean eligibleResult, String kind,
                  String fixedWords, String minimumWords) {
        checkRow(LegacyNfsBinding.NFS_V3, procedure, name, eligibleArgument, eligibleResult, kind, fixedWords,
                minimumWords);
    }

    private static void checkRow(ProgramBinding binding, int procedure, String name, boolean eligibleArgument,
                                 boolean eligibleResult, String kind, String fixedWords, String minimumWords) {
        ProcedureBinding row = binding.procedure(procedure).orElseThrow();
        assertThat(row.name()).isEqualTo(name);
        // ULB-R-006 / RPC-R-015: exactly WRITE data, SYMLINK path, READ data, READLINK path.
        assertThat(row.hasEligibleArgument()).isEqualTo(eligibleArgument);
        assertThat(row.hasEligibleResult()).isEqualTo(eligibleResult);
        assertThat(binding.isDdpEligible(procedure, Direction.ARGUMENT)).isEqualTo(eligibleArgument);
        assertThat(binding.isDdpEligible(procedure, Direction.RESULT)).isEqualTo(eligibleResult);
        // ULB-R-004 / ULB-R-008: no v2/v3 procedure uses short Reply chunk retry.
        assertThat(row.shortReplyChunkRetry()).isFalse();
        // ULB-R-001: the largest result from the XDR definition.
        int fixed = XdrWords.octets(fixedWords);
        int minimum = XdrWords.octets(minimumWords);
        assertThat(row.replySize().fixedOctets()).isEqualTo(fixed);
        switch (kind) {
            case "fixed" -> {
                assertThat(row.replySize()).isInstanceOf(Fixed.class);
                assertThat(row.maxResultOctets(0, LIMITS)).isEqualTo(fixed);
            }
            case "count" -> {
                assertThat(row.replySize()).isInstanceOf(PlusCount.class);
                assertThat(row.maxResultOctets(4097, LIMITS)).isEqualTo(fixed + 4100);
                assertThat(row.maxResultOctets(0, LIMITS)).isEqualTo(Math.max(fixed, minimum));
                assertThat(row.replySize().reducedMaxOctets()).isEqualTo(Math.max(fixed, minimum));
            }
            case "path" -> {
                assertThat(row.replySize()).isInstanceOf(PlusPath.class);
                assertThat(row.maxResultOctets(0, LIMITS.withMaxPathLength(255))).isEqualTo(fixed + 256);
            }
            default -> throw new IllegalArgumentException(kind);
        }
        if (eligibleResult) {
            // The Write chunk holds the item without roundup (RPC-R-027, RPC-R-030).
            long expected = kind.equals("count") ? 4097 : 255;
            assertThat(row.writeChunkOctets(4097, LIMITS.withMaxPathLength(255))).isEqualTo(expected);
            assertThat(row.reducedResultOctets(4097, LIMITS)).isEqualTo(Math.max(fixed, minimum));
        } else {
            assertThat(row.writeChunkOctets(4097, LIMITS)).isZero();
        }
    }

    @Test
    void tablesListEveryProcedureOnce() {
        assertThat(LegacyNfsBinding.NFS_V2.procedures()).extracting(ProcedureBinding::number)
                .containsExactlyElementsOf(range(18));
        assertThat(LegacyNfsBinding.NFS_V3.procedures()).extracting(ProcedureBinding::number)
                .containsExactlyElementsOf(range(22));
        assertThat(LegacyNfsBinding.forVersion(3)).isSameAs(LegacyNfsBinding.NFS_V3);
        assertThatThrownBy(() -> LegacyNfsBinding.forVersion(4)).isInstanceOf(IllegalArgumentException.class);
    }

    /** RFC 1094 §2.3: MAXDATA 8192 and MAXPATHLEN 1024 bound the NFSv2 READ and READLINK results. */
    @Test
    void nfsV2ProtocolLimitsCapTheVariablePart() {
        ProcedureBinding read = LegacyNfsBinding.NFS_V2.procedure(6).orElseThrow();
        assertThat(read.writeChunkOctets(65536, LIMITS)).isEqualTo(8192);
        ProcedureBinding readlink = LegacyNfsBinding.NFS_V2.procedure(5).orElseThrow();
        assertThat(readlink.writeChunkOctets(0, LIMITS.withMaxPathLength(4096))).isEqualTo(1024);
    }

    /** ULB-R-006: a procedure outside the table (or a non-eligible one) has nothing to reduce. */
    @Test
    void unknownProcedureHasNothingEligible() {
        assertThat(LegacyNfsBinding.NFS_V3.isDdpEligible(22, Direction.ARGUMENT)).isFalse();
        assertThat(LegacyNfsBinding.NFS_V3.isDdpEligible(3, Direction.ARGUMENT)).isFalse();
        assertThat(LegacyNfsBinding.NFS_V3.covers(NfsBindingConstants.NFS_PROGRAM, 3)).isTrue();
        assertThat(LegacyNfsBinding.NFS_V3.covers(NfsBindingConstants.NFS_PROGRAM, 4)).isFalse();
        assertThat(LegacyNfsBinding.NFS_V3.transport()).isEqualTo(TransportRule.RPC_OVER_RDMA);
    }

    /** ULB-R-009, ULB-R-015, ULB-R-032, RPC-R-072: nfsrdma is port 20049; NFS over TCP stays on 2049. */
    @Test
    void nfsRdmaPort() {
        assertThat(NfsBindingConstants.NFS_RDMA_PORT).isEqualTo(20049);
        assertThat(NfsBindingConstants.NFS_TCP_PORT).isEqualTo(2049);
        assertThat(NfsBindingConstants.NFS_PROGRAM).isEqualTo(100003);
    }

    private static List<Integer> range(int n) {
        return java.util.stream.IntStream.range(0, n).boxed().toList();
    }
}
