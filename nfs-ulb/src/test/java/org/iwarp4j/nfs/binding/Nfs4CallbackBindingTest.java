package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.iwarp4j.nfs.binding.DdpEligibleItem.Direction;
import org.iwarp4j.nfs.binding.Nfs4CallbackBinding.CallbackTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 8267 §6.5 (callbacks) and §6.6, ULB-R-026, ULB-R-027, ULB-R-028. */
class Nfs4CallbackBindingTest {

    /** One test per callback operation: nothing eligible, its minor versions, its reply size in words. */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "3     | CB_GETATTR              | 0 | false | 1 + 1 + 3 + 1",
            "4     | CB_RECALL               | 0 | true  | 1",
            "5     | CB_LAYOUTRECALL         | 1 | true  | 1",
            "6     | CB_NOTIFY               | 1 | true  | 1",
            "7     | CB_PUSH_DELEG           | 1 | true  | 1",
            "8     | CB_RECALL_ANY           | 1 | true  | 1",
            "9     | CB_RECALLABLE_OBJ_AVAIL | 1 | true  | 1",
            "10    | CB_RECALL_SLOT          | 1 | true  | 1",
            "11    | CB_SEQUENCE             | 1 | true  | 1 + 4 + 4",
            "12    | CB_WANTS_CANCELLED      | 1 | true  | 1",
            "13    | CB_NOTIFY_LOCK          | 1 | true  | 1",
            "14    | CB_NOTIFY_DEVICEID      | 1 | true  | 1",
            "15    | CB_OFFLOAD              | 2 | true  | 1",
            "10044 | CB_ILLEGAL              | 0 | true  | 1"})
    void callbackOperationRow(int opcode, String name, int since, boolean predictable, String words) {
        Nfs4OperationBinding row = Nfs4CallbackBinding.operation(opcode, 2).orElseThrow();
        assertThat(row.name()).isEqualTo(name);
        assertThat(row.ddpEligible()).isEmpty();
        assertThat(Nfs4CallbackBinding.isDdpEligible(opcode, Direction.ARGUMENT)).isFalse();
        assertThat(Nfs4CallbackBinding.isDdpEligible(opcode, Direction.RESULT)).isFalse();
        assertThat(row.firstMinorVersion()).isEqualTo(since);
        if (since > 0) {
            assertThat(Nfs4CallbackBinding.operation(opcode, since - 1)).isEmpty();
        }
        assertThat(row.replySize().predictable()).isEqualTo(predictable);
        assertThat(row.replySize().fixedOctets()).isEqualTo(XdrWords.octets(words));
    }

    /** ULB-R-026, ULB-R-027: v4.0 callbacks on a separate connection; v4.1+ on the session per RFC 8167. */
    @Test
    void callbackTransportPerMinorVersion() {
        assertThat(Nfs4CallbackBinding.callbackTransport(0)).isEqualTo(CallbackTransport.SEPARATE_CONNECTION_FROM_SETCLIENTID);
        assertThat(Nfs4CallbackBinding.callbackTransport(1)).isEqualTo(CallbackTransport.SESSION_BACKCHANNEL_RFC_8167);
        assertThat(Nfs4CallbackBinding.callbackTransport(2)).isEqualTo(CallbackTransport.SESSION_BACKCHANNEL_RFC_8167);
        assertThatThrownBy(() -> Nfs4CallbackBinding.callbackTransport(3)).isInstanceOf(IllegalArgumentException.class);
    }

    /** ULB-R-027: without RFC 8167 the server does not offer the backchannel on this connection. */
    @Test
    void backchannelFlagOnlyWithRfc8167() {
        int requested = 0x1 | Nfs4CallbackBinding.CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
        assertThat(Nfs4CallbackBinding.createSessionFlags(requested, false)).isEqualTo(0x1);
        assertThat(Nfs4CallbackBinding.createSessionFlags(requested, true)).isEqualTo(requested);
    }

    /** ULB-R-028: Short callbacks only, unless the backchannel ca_maxrequestsize exceeds the inline threshold. */
    @Test
    void shortMessagesUnlessTheClientAcceptsLongCalls() {
        assertThat(Nfs4CallbackBinding.serverMayUseLongCalls(4096, 4096)).isFalse();
        assertThat(Nfs4CallbackBinding.serverMayUseLongCalls(4097, 4096)).isTrue();
        assertThat(Nfs4CallbackBinding.callbackFits(1000, 4096, 4096)).isTrue();
        assertThat(Nfs4CallbackBinding.callbackFits(1200, 4096, 1024)).isTrue();
        assertThat(Nfs4CallbackBinding.callbackFits(1200, 1024, 1024)).isFalse();
        assertThat(Nfs4CallbackBinding.callbackFits(5000, 4096, 1024)).isFalse();
    }

    /** §6.5.2: the backchannel's ca_maxresponsesize bounds every callback reply. */
    @Test
    void callbackReplyBound() {
        assertThat(Nfs4CallbackBinding.callbackReplyBound(2048)).isEqualTo(2048);
    }
}
