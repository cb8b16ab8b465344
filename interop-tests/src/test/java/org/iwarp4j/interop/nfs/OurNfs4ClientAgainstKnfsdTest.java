package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.nfs.Nfs4Client;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our {@link Nfs4Client} against the peer's knfsd over RPC-over-RDMA (port 20049, no MOUNT in
 * NFSv4): a session at the highest minor version knfsd offers, 16 MiB put and got with the same
 * SHA-256 on both sides, ls, REMOVE, NFS4ERR_NOENT; our RNIC's meters show knfsd pulling WRITE
 * data from our Read chunks with RDMA Read and pushing READ data into our Write chunks with RDMA
 * Write (RFC 8267 §6.1). knfsd's NFSv4 root is its pseudo file system; the export is below it.
 */
class OurNfs4ClientAgainstKnfsdTest extends KnfsdClientFixture {

    private static final Logger LOG = LoggerFactory.getLogger(OurNfs4ClientAgainstKnfsdTest.class);
    private static final int SIZE = 16 << 20;

    OurNfs4ClientAgainstKnfsdTest(LinuxPeer peer) {
        super(peer, true);
    }

    /** Connects; if the first call gets no reply at all the case is {@linkplain #quarantined quarantined}. */
    private Nfs4Client connect(Rnic rnic) throws Exception {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().mpa(BULK_MPA).build();
        Nfs4Client.Builder b = Nfs4Client.builder(knfsd.rdmaAddress()).rdma(rnic, knfsd.rdmaAddress(), settings)
                .root(knfsd.exportPath()).timeout(CALL_TIMEOUT);
        try {
            return b.connect();
        } catch (RpcTimeoutException e) {
            throw quarantined(e);
        }
    }

    @Test
    void putAndGetSixteenMebibytesWithChecksumsAndLs() throws Exception {
        try (Rnic rnic = recordedRnic("nfs4-client").build();
             Nfs4Client nfs = connect(rnic)) {
            LOG.info("NFSv4.{} session with knfsd over RDMA: rsize {}, wsize {}", nfs.minorVersion(), nfs.readSize(),
                    nfs.writeSize());
            assertThat(nfs.transport()).isInstanceOf(RpcRdmaRequester.class);
            assertThat(nfs.minorVersion()).as("knfsd of Linux 6.1 offers 4.2").isEqualTo(2);

            RoundTrip t = putAndGet(OurClient.of(nfs), SIZE, SIZE);

            assertThat(nfs.list("")).extracting(DirEntry4::name).contains("put.bin", "get.bin");
            assertThat(nfs.stat("put.bin").size()).isEqualTo(SIZE);
            nfs.remove("put.bin");
            assertThat(peer.exec("test -e " + knfsd.onPeer("put.bin")).succeeded()).as("removed on the peer").isFalse();
            assertThatThrownBy(() -> nfs.stat("put.bin")).isInstanceOfSatisfying(Nfs4StatusException.class,
                    e -> assertThat(e.nfs4Status()).isEqualTo(Nfs4Constants.NFS4ERR_NOENT));
            LOG.info("{} octets over NFSv4.{}: put in {} ms, got in {} ms", SIZE, nfs.minorVersion(), t.putMillis(),
                    t.getMillis());
        }
    }
}
