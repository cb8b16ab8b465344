package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.iwarp4j.nfs.binding.DdpEligibleItem.Direction;
import org.iwarp4j.nfs.binding.Nfs4Binding.OperationCall;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Fixed;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusCount;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.PlusPath;
import org.iwarp4j.nfs.binding.ReplySizeEstimate.Unpredictable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 8267 §6.1 and §6.2, one test per NFSv4 operation: DDP eligibility (ULB-R-012, RPC-R-015),
 * minor versions, and the result size re-derived here in XDR words from RFC 7530, RFC 5661 and RFC
 * 7862 (ULB-R-001). Words: stateid4 4, change_info4 5, verifier4 2, nfstime4 3, bitmap4 1 + 3,
 * sessionid4 4, channel_attrs4 8, opaque&lt;NFS4_OPAQUE_LIMIT&gt; 1 + 256, LOCK4denied
 * 2 + 2 + 1 + 2 + 257 = 264, open_delegation4 (WRITE arm, who's body excluded) 1 + 4 + 1 + 3 + 4
 * = 13, write_response4 5 + 2 + 1 + 2 = 10.
 */
class Nfs4BindingTest {

    private static final ReplySizeLimits LIMITS = ReplySizeLimits.defaults();

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "3     | ACCESS               | 0 | 2 | -   | fixed         | 1 + 1 + 1",
            "4     | CLOSE                | 0 | 2 | -   | fixed         | 1 + 4",
            "5     | COMMIT               | 0 | 2 | -   | fixed         | 1 + 2",
            "6     | CREATE               | 0 | 2 | arg | fixed         | 1 + 5 + 4",
            "7     | DELEGPURGE           | 0 | 2 | -   | fixed         | 1",
            "8     | DELEGRETURN          | 0 | 2 | -   | fixed         | 1",
            "9     | GETATTR              | 0 | 2 | -   | unpredictable | 1 + 4 + 1",
            "10    | GETFH                | 0 | 2 | -   | fixed         | 1 + 1 + 32",
            "11    | LINK                 | 0 | 2 | -   | fixed         | 1 + 5",
            "12    | LOCK                 | 0 | 2 | -   | fixed         | 1 + 264",
            "13    | LOCKT                | 0 | 2 | -   | fixed         | 1 + 264",
            "14    | LOCKU                | 0 | 2 | -   | fixed         | 1 + 4",
            "15    | LOOKUP               | 0 | 2 | -   | fixed         | 1",
            "16    | LOOKUPP              | 0 | 2 | -   | fixed         | 1",
            "17    | NVERIFY              | 0 | 2 | -   | fixed         | 1",
            "18    | OPEN                 | 0 | 2 | -   | unpredictable | 1 + 4 + 5 + 1 + 4 + 13",
            "19    | OPENATTR             | 0 | 2 | -   | fixed         | 1",
            "20    | OPEN_CONFIRM         | 0 | 0 | -   | fixed         | 1 + 4",
            "21    | OPEN_DOWNGRADE       | 0 | 2 | -   | fixed         | 1 + 4",
            "22    | PUTFH                | 0 | 2 | -   | fixed         | 1",
            "23    | PUTPUBFH             | 0 | 2 | -   | fixed         | 1",
            "24    | PUTROOTFH            | 0 | 2 | -   | fixed         | 1",
            "25    | READ                 | 0 | 2 | res | count         | 1 + 1 + 1",
            "26    | READDIR              | 0 | 2 | -   | count         | 1",
            "27    | READLINK             | 0 | 2 | res | path          | 1 + 1",
            "28    | REMOVE               | 0 | 2 | -   | fixed         | 1 + 5",
            "29    | RENAME               | 0 | 2 | -   | fixed         | 1 + 5 + 5",
            "30    | RENEW                | 0 | 0 | -   | fixed         | 1",
            "31    | RESTOREFH            | 0 | 2 | -   | fixed         | 1",
            "32    | SAVEFH               | 0 | 2 | -   | fixed         | 1",
            "33    | SECINFO              | 0 | 2 | -   | unpredictable | 1 + 1",
            "34    | SETATTR              | 0 | 2 | -   | fixed         | 1 + 4",
            "35    | SETCLIENTID          | 0 | 0 | -   | unpredictable | 1 + 2 + 2",
            "36    | SETCLIENTID_CONFIRM  | 0 | 0 | -   | fixed         | 1",
            "37    | VERIFY               | 0 | 2 | -   | fixed         | 1",
            "38    | WRITE                | 0 | 2 | arg | fixed         | 1 + 1 + 1 + 2",
            "39    | RELEASE_LOCKOWNER    | 0 | 0 | -   | fixed         | 1",
            "40    | BACKCHANNEL_CTL      | 1 | 2 | -   | fixed         | 1",
            "41    | BIND_CONN_TO_SESSION | 1 | 2 | -   | fixed         | 1 + 4 + 1 + 1",
            "42    | EXCHANGE_ID          | 1 | 2 | -   | unpredictable | 1 + 2 + 1 + 1 + 1 + 2*4 + 2 + 257 + 257 + 1 + 1 + 1 + 3",
            "43    | CREATE_SESSION       | 1 | 2 | -   | fixed         | 1 + 4 + 1 + 1 + 8 + 8",
            "44    | DESTROY_SESSION      | 1 | 2 | -   | fixed         | 1",
            "45    | FREE_STATEID         | 1 | 2 | -   | fixed         | 1",
            "46    | GET_DIR_DELEGATION   | 1 | 2 | -   | fixed         | 1 + 1 + 2 + 4 + 3*4",
            "47    | GETDEVICEINFO        | 1 | 2 | -   | unpredictable | 1 + 1 + 1 + 4",
            "48    | GETDEVICELIST        | 1 | 2 | -   | count         | 1 + 2 + 2 + 1 + 1",
            "49    | LAYOUTCOMMIT         | 1 | 2 | -   | fixed         | 1 + 1 + 2",
            "50    | LAYOUTGET            | 1 | 2 | -   | unpredictable | 1 + 1 + 4 + 1 + 2 + 2 + 1 + 1 + 1",
            "51    | LAYOUTRETURN         | 1 | 2 | -   | fixed         | 1 + 1 + 4",
            "52    | SECINFO_NO_NAME      | 1 | 2 | -   | unpredictable | 1 + 1",
            "53    | SEQUENCE             | 1 | 2 | -   | fixed         | 1 + 4 + 5",
            "54    | SET_SSV              | 1 | 2 | -   | unpredictable | 1 + 1",
            "55    | TEST_STATEID         | 1 | 2 | -   | count         | 1 + 1",
            "56    | WANT_DELEGATION      | 1 | 2 | -   | unpredictable | 1 + 13",
            "57    | DESTROY_CLIENTID     | 1 | 2 | -   | fixed         | 1",
            "58    | RECLAIM_COMPLETE     | 1 | 2 | -   | fixed         | 1",
            "59    | ALLOCATE             | 2 | 2 | -   | fixed         | 1",
            "60    | COPY                 | 2 | 2 | -   | fixed         | 1 + 10 + 1 + 1",
            "61    | COPY_NOTIFY          | 2 | 2 | -   | unpredictable | 1 + 3 + 4 + 1",
            "62    | DEALLOCATE           | 2 | 2 | -   | fixed         | 1",
            "63    | IO_ADVISE            | 2 | 2 | -   | fixed         | 1 + 4",
            "64    | LAYOUTERROR          | 2 | 2 | -   | fixed         | 1",
            "65    | LAYOUTSTATS          | 2 | 2 | -   | fixed         | 1",
            "66    | OFFLOAD_CANCEL       | 2 | 2 | -   | fixed         | 1",
            "67    | OFFLOAD_STATUS       | 2 | 2 | -   | fixed         | 1 + 2 + 1 + 1",
            "68    | READ_PLUS            | 2 | 2 | -   | unpredictable | 1 + 1 + 1",
            "69    | SEEK                 | 2 | 2 | -   | fixed         | 1 + 1 + 2",
            "70    | WRITE_SAME           | 2 | 2 | -   | fixed         | 1 + 10",
            "71    | CLONE                | 2 | 2 | -   | fixed         | 1",
            "10044 | ILLEGAL              | 0 | 2 | -   | fixed         | 1"})
    void operationRow(int opcode, String name, int firstMinor, int lastMinor, String eligible, String kind,
                      String fixedWords) {
        Nfs4OperationBinding row = Nfs4Binding.operation(opcode).orElseThrow();
        assertThat(row.name()).isEqualTo(name);
        for (int minor = 0; minor <= 2; minor++) {
            boolean defined = minor >= firstMinor && minor <= lastMinor;
            assertThat(Nfs4Binding.operation(opcode, minor)).as("in 4.%d", minor).isEqualTo(
                    defined ? java.util.Optional.of(row) : java.util.Optional.empty());
        }
        // ULB-R-012: only WRITE4args data, NF4LNK linkdata, READ4resok data, READLINK4resok linkdata.
        assertThat(Nfs4Binding.isDdpEligible(opcode, Direction.ARGUMENT)).isEqualTo(eligible.equals("arg"));
        assertThat(Nfs4Binding.isDdpEligible(opcode, Direction.RESULT)).isEqualTo(eligible.equals("res"));
        assertThat(row.isReadOperation()).isEqualTo(eligible.equals("res"));
        // ULB-R-001: the result's fixed part from the XDR.
        int fixed = XdrWords.octets(fixedWords);
        assertThat(row.replySize().fixedOctets()).isEqualTo(fixed);
        switch (kind) {
            case "fixed" -> {
                assertThat(row.replySize()).isInstanceOf(Fixed.class);
                assertThat(row.replySize().maxOctets(0, LIMITS)).isEqualTo(fixed);
            }
            case "count" -> {
                PlusCount size = (PlusCount) row.replySize();
                assertThat(size.maxOctets(100, LIMITS)).isEqualTo(fixed + 100L * size.octetsPerUnit());
            }
            case "path" -> {
                assertThat(row.replySize()).isInstanceOf(PlusPath.class);
                assertThat(row.replySize().maxOctets(0, LIMITS.withMaxPathLength(1021))).isEqualTo(fixed + 1024);
            }
            case "unpredictable" -> {
                assertThat(row.replySize()).isInstanceOf(Unpredictable.class);
                assertThat(row.replySize().predictable()).isFalse();
                // ULB-R-014: in a session, ca_maxresponsesize stands in for the unbounded items.
                assertThat(row.replySize().maxOctets(0, ReplySizeLimits.ofSession(8192))).isEqualTo(fixed + 8192);
            }
            default -> throw new IllegalArgumentException(kind);
        }
    }

    @Test
    void everyOpcodeOfEveryMinorVersionIsInTheTable() {
        assertThat(Nfs4Binding.operations(0)).extracting(Nfs4OperationBinding::opcode)
                .containsExactlyElementsOf(opcodes(3, 39));
        assertThat(Nfs4Binding.operations(1)).hasSize(58 - 3 + 1 - 5 + 1);
        assertThat(Nfs4Binding.operations(2)).hasSize(71 - 3 + 1 - 5 + 1);
        assertThatThrownBy(() -> Nfs4Binding.operations(3)).isInstanceOf(IllegalArgumentException.class);
    }

    /** ULB-R-012: CREATE's linkdata is eligible only in the NF4LNK arm of createtype4 (RPC-R-019). */
    @Test
    void createLinkdataIsEligibleOnlyInTheSymlinkArm() {
        DdpEligibleItem item = Nfs4Binding.operation(6).orElseThrow().ddpEligible().get(0);
        assertThat(item.union()).isEqualTo("createtype4 NF4LNK");
        assertThat(item.direction()).isEqualTo(Direction.ARGUMENT);
    }

    /** ULB-R-013, ULB-R-004: short Reply chunk retry only for v4.0 COMPOUNDs with a GETATTR. */
    @Test
    void shortReplyChunkRetryOnlyForV40Getattr() {
        assertThat(Nfs4Binding.shortReplyChunkRetryAllowed(0, List.of(22, 9))).isTrue();
        assertThat(Nfs4Binding.shortReplyChunkRetryAllowed(0, List.of(22, 25))).isFalse();
        assertThat(Nfs4Binding.shortReplyChunkRetryAllowed(1, List.of(53, 22, 9))).isFalse();
    }

    /** ULB-R-013: a GETATTR of unpredictable size should not share a COMPOUND with RENAME. */
    @Test
    void unpredictableGetattrShouldTravelAlone() {
        assertThat(Nfs4Binding.getattrShouldBeSentAlone(List.of(22, 32, 22, 29, 9), true)).isTrue();
        assertThat(Nfs4Binding.getattrShouldBeSentAlone(List.of(22, 29, 9), false)).isFalse();
        assertThat(Nfs4Binding.getattrShouldBeSentAlone(List.of(22, 9), true)).isFalse();
    }

    /**
     * ULB-R-001, ULB-R-014: COMPOUND {@code PUTFH READ(count 8192)} with tag "ab": status, tag
     * (1 + 1 words), count, then opcode + result per operation; in a session never beyond
     * ca_maxresponsesize.
     */
    @Test
    void compoundReplySize() {
        List<OperationCall> ops = List.of(OperationCall.of(22), new OperationCall(25, 8192));
        long expected = XdrWords.octets("1 + 1 + 1 + 1") + XdrWords.octets("1 + 1") + XdrWords.octets("1 + 3") + 8192;
        assertThat(Nfs4Binding.compoundMaxReplyOctets(0, 2, ops, LIMITS)).isEqualTo(expected);
        assertThat(Nfs4Binding.compoundMaxReplyOctets(1, 2, ops, ReplySizeLimits.ofSession(4096))).isEqualTo(4096);
        // An unbounded GETATTR in a session: ca_maxresponsesize is the whole estimate.
        assertThat(Nfs4Binding.compoundMaxReplyOctets(1, 0, List.of(OperationCall.of(53), OperationCall.of(9)),
                ReplySizeLimits.ofSession(65536))).isEqualTo(65536);
        assertThatThrownBy(() -> Nfs4Binding.compoundMaxReplyOctets(1, 0, List.of(OperationCall.of(35)), LIMITS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4.1");
    }

    /** ULB-R-012: NFSv4.2's READ_PLUS and WRITE_SAME are not eligible, an unknown opcode neither. */
    @Test
    void nothingElseIsEligible() {
        long eligible = Nfs4Binding.OPERATIONS.stream().filter(o -> !o.ddpEligible().isEmpty()).count();
        assertThat(eligible).isEqualTo(4);
        assertThat(Nfs4Binding.isDdpEligible(9999, Direction.ARGUMENT)).isFalse();
    }

    private static List<Integer> opcodes(int from, int to) {
        List<Integer> list = new java.util.ArrayList<>(java.util.stream.IntStream.rangeClosed(from, to).boxed().toList());
        list.add(Nfs4Binding.OP_ILLEGAL);
        return list;
    }
}
