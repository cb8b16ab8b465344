package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.interop.peer.ExecResult;
import org.junit.jupiter.api.Test;

/**
 * Which ends of the Linux program's out-of-bounds Write {@link SiwTerminateInteropTest} quarantines
 * as siw's lost completion: only a timeout after the disconnect with no completion of the Write at
 * all; a Write that completed in error, or a program that never saw the disconnect, still fails.
 */
class SiwLostWriteTest {

    private static final String COMMAND = "exec iwarp_peer -c -r actor -o write -S 4096 -O -t 30";
    private static final String UNTIL_OOB = "cm RDMA_CM_EVENT_ESTABLISHED status=0\nconnected\n"
            + "oob: writing 4097 octets into the 4096 advertised\n";

    @Test
    void aTimeoutAfterTheDisconnectWithoutAnyCompletionIsSiwsLostWrite() {
        assertThat(SiwTerminateInteropTest.siwLostTheWrite(new ExecResult(COMMAND, 4, UNTIL_OOB
                + "cm RDMA_CM_EVENT_DISCONNECTED status=0\nerror: no completion within 30000 ms (exit 4)\n", "")))
                .isTrue();
    }

    @Test
    void aWriteThatCompletedInErrorIsTheExpectedEnd() {
        assertThat(SiwTerminateInteropTest.siwLostTheWrite(new ExecResult(COMMAND, 3, UNTIL_OOB
                + "wc write status=remote access error(10) vendor_err=0x0\ncm RDMA_CM_EVENT_DISCONNECTED status=0\n"
                + "error: a work request failed (exit 3)\n", ""))).isFalse();
    }

    @Test
    void aTimeoutWithoutTheDisconnectIsNotQuarantined() {
        assertThat(SiwTerminateInteropTest.siwLostTheWrite(new ExecResult(COMMAND, 4, UNTIL_OOB
                + "error: no completion within 30000 ms (exit 4)\n", ""))).isFalse();
    }
}
