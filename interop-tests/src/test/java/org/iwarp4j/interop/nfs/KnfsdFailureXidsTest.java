package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The xids a failing knfsd case looks up in the peer's trace: as {@link RpcCallInfo} prints them
 * (no leading zeros) in, the kernel's tracepoints print them ({@code xid=0x%08x}) out.
 */
class KnfsdFailureXidsTest {

    @Test
    void xidsOfTheFailureAndItsCausesPaddedAsTheKernelPrintsThem() {
        RpcCallInfo call = new RpcCallInfo(0x1a2b, 100003, 4, 1);
        Exception failure = new IOException("upload failed",
                new RpcTimeoutException("no reply to " + call + " on rdma within 120000 ms (connection 1 open)"));
        assertThat(KnfsdClientFixture.xidsIn(failure)).containsExactly("0x00001a2b");
    }

    @Test
    void eachXidOnceInTheOrderFound() {
        Exception failure = new IllegalStateException("xid 0xbe72c7da and xid 0x5, again xid 0xbe72c7da");
        assertThat(KnfsdClientFixture.xidsIn(failure)).containsExactly("0xbe72c7da", "0x00000005");
    }

    @Test
    void noXidNoLookup() {
        assertThat(KnfsdClientFixture.xidsIn(new AssertionError("what knfsd stored"))).isEmpty();
        assertThat(KnfsdClientFixture.xidsIn(new IllegalStateException((String) null))).isEmpty();
        assertThat(KnfsdClientFixture.xidsIn(new IllegalStateException("xid 0x123456789 is no xid"))).isEmpty();
    }
}
