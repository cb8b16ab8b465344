package org.iwarp4j.rpcrdma.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.iwarp4j.testkit.Hex;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TestData;
import org.iwarp4j.testkit.TestVectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The RFC 8797 block: known answers, Linux's values from the NFS capture, and the §5.2 search. */
class RpcRdmaPrivateDataTest {

    @Test
    void vCmpd1EncodesAndDecodes() { // CMPD-R-002
        RpcRdmaPrivateData pd = RpcRdmaPrivateData.of(true, 4096, 4096);
        assertThat(pd.encode()).isEqualTo(TestVectors.bytes("V-CMPD-1"));
        assertThat(RpcRdmaPrivateData.find(TestVectors.bytes("V-CMPD-1"))).contains(pd);
    }

    @Test
    void vCmpd2IsWhatSvcrdmaSends() { // CMPD-R-002
        assertThat(RpcRdmaPrivateData.find(TestVectors.bytes("V-CMPD-2")))
                .contains(new RpcRdmaPrivateData(1, false, 4096, 4096));
        assertThat(RpcRdmaPrivateData.of(false, 4096, 4096).encode()).isEqualTo(TestVectors.bytes("V-CMPD-2"));
    }

    @Test
    void linuxMpaRequestAndReplyOfTheNfsCapture() throws Exception { // CMPD-R-013, MPA2-R-016
        TcpConnection c = PcapReader.read(TestData.capture("nfs3-rdma-siw.pcap")).connections().get(0);
        byte[] request = NfsCaptureHeaderTest.mpaPrivateData(c.clientToServer());
        byte[] reply = NfsCaptureHeaderTest.mpaPrivateData(c.serverToClient());
        // The RFC 6581 IRD/ORD word first, then the block at offset 4.
        assertThat(request).isEqualTo(Hex.decode("00800000 f6ab0e18 01 01 03 03"));
        assertThat(reply).isEqualTo(Hex.decode("00000080 f6ab0e18 01 00 03 03"));
        RpcRdmaPrivateData client = RpcRdmaPrivateData.find(request).orElseThrow();
        RpcRdmaPrivateData server = RpcRdmaPrivateData.find(reply).orElseThrow();
        assertThat(client).isEqualTo(new RpcRdmaPrivateData(1, true, 4096, 4096));
        assertThat(server).isEqualTo(new RpcRdmaPrivateData(1, false, 4096, 4096));
        assertThat(InlineThresholds.negotiate(client, server)).isEqualTo(new InlineThresholds(4096, 4096));
        // CMPD-R-009: svcrdma cleared R, so no Send with Invalidate on this connection.
        assertThat(client.remoteInvalidation() && server.remoteInvalidation()).isFalse();
    }

    @ParameterizedTest
    @CsvSource({"1024, 0", "4096, 3", "65536, 63", "262144, 255", "5000, 3", "2047, 0", "512, 0", "1048576, 255"})
    void sizeEncodingIsBytesOver1024MinusOneRoundedDown(int bytes, int encoded) { // CMPD-R-010
        assertThat(RpcRdmaPrivateData.encodeSize(bytes)).isEqualTo(encoded);
    }

    @Test
    void sizeDecodingIsEncodedPlusOneTimes1024() { // CMPD-R-010
        assertThat(RpcRdmaPrivateData.decodeSize(0x00)).isEqualTo(1024);
        assertThat(RpcRdmaPrivateData.decodeSize(0x03)).isEqualTo(4096);
        assertThat(RpcRdmaPrivateData.decodeSize(0xFF)).isEqualTo(262144);
    }

    @Test
    void thresholdsAreTheSmallerOfSenderSendAndReceiverReceive() { // CMPD-R-011
        RpcRdmaPrivateData client = RpcRdmaPrivateData.of(false, 8192, 4096);
        RpcRdmaPrivateData server = RpcRdmaPrivateData.of(false, 4096, 16384);
        assertThat(InlineThresholds.negotiate(client, server)).isEqualTo(new InlineThresholds(8192, 4096));
    }

    @Test
    void withoutABlockBothThresholdsAre1024AndNoRemoteInvalidation() { // CMPD-R-001, CMPD-R-012, RPC-R-014
        byte[] noise = Hex.decode("00010203 f6ab0e19 01010303");
        assertThat(RpcRdmaPrivateData.find(noise)).isEmpty();
        assertThat(RpcRdmaPrivateData.findOrAbsent(noise)).isEqualTo(RpcRdmaPrivateData.ABSENT);
        assertThat(RpcRdmaPrivateData.ABSENT.remoteInvalidation()).isFalse();
        assertThat(InlineThresholds.negotiate(RpcRdmaPrivateData.of(true, 65536, 65536), RpcRdmaPrivateData.ABSENT))
                .isEqualTo(InlineThresholds.DEFAULT);
        assertThat(RpcRdmaPrivateData.find(new byte[0])).isEmpty();
    }

    @Test
    void theIdentifierIsFoundAtAnyOffsetAlignedOrNot() { // CMPD-R-013
        byte[] block = RpcRdmaPrivateData.of(true, 8192, 2048).encode();
        for (int offset : new int[] {0, 4, 7, 13}) {
            byte[] pd = new byte[offset + block.length + 3];
            Arrays.fill(pd, (byte) 0x5A);
            System.arraycopy(block, 0, pd, offset, block.length);
            assertThat(RpcRdmaPrivateData.find(pd)).as("offset %d", offset)
                    .contains(new RpcRdmaPrivateData(1, true, 8192, 2048));
        }
    }

    @Test
    void aBlockRunningPastTheBufferIsAbsent() { // CMPD-R-006, CMPD-R-014
        byte[] block = TestVectors.bytes("V-CMPD-1");
        assertThat(RpcRdmaPrivateData.find(Arrays.copyOf(block, 6))).isEmpty();
        byte[] tail = new byte[9];
        System.arraycopy(block, 0, tail, 4, 5); // identifier and version in the last 5 octets
        assertThat(RpcRdmaPrivateData.find(tail)).isEmpty();
    }

    @Test
    void anUnknownVersionIsAbsent() { // CMPD-R-014, CMPD-R-015
        byte[] v2 = Hex.decode("f6ab0e18 02010303 00000000");
        assertThat(RpcRdmaPrivateData.find(v2)).isEmpty();
    }

    @Test
    void reservedFlagBitsAreIgnoredAndSentAsZero() { // CMPD-R-005
        assertThat(RpcRdmaPrivateData.find(Hex.decode("f6ab0e18 01ff0303")))
                .contains(new RpcRdmaPrivateData(1, true, 4096, 4096));
        assertThat(RpcRdmaPrivateData.find(Hex.decode("f6ab0e18 01fe0303")))
                .contains(new RpcRdmaPrivateData(1, false, 4096, 4096));
        assertThat(RpcRdmaPrivateData.of(true, 1024, 1024).encode()[5]).isEqualTo((byte) 0x01);
    }
}
