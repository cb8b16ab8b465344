package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.iwarp4j.interop.nfs.MpaStartupOnWire.RpcRdmaBlock;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.v3.EntryPlus3;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our {@link NfsClient} against the peer's kernel NFS server over RPC-over-RDMA: MOUNT over TCP to
 * rpc.mountd, then NFSv3 over RDMA to knfsd's port 20049. Files are put and got with the same
 * SHA-256 on both sides; our RNIC's meters show knfsd pulling WRITE data from our Read chunks
 * with RDMA Read and pushing READ data into our Write chunks with RDMA Write (RFC 8267 §4.1).
 */
class OurClientAgainstKnfsdTest extends KnfsdClientFixture {

    private static final Logger LOG = LoggerFactory.getLogger(OurClientAgainstKnfsdTest.class);
    private static final Path CAPTURES = Path.of("target", "interop-nfs");

    private final List<ByteArrayOutputStream> captures = new CopyOnWriteArrayList<>();
    private Rnic rnic;
    private NfsClient client;

    OurClientAgainstKnfsdTest(LinuxPeer peer) {
        super(peer, false);
    }

    @Override
    void beforeKnfsdStops() throws Exception {
        Files.createDirectories(CAPTURES);
        Files.writeString(CAPTURES.resolve("knfsd-trace.txt"), knfsd.trace());
    }

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
        if (rnic != null) {
            rnic.close();
            rnic = null;
        }
        if (knfsd != null) {
            peer.exec("rm -f " + knfsd.onPeer("*"));
        }
    }

    /** Our client with CRC off, see {@link SiwTrailerWorkaround}. */
    private NfsClient connect(boolean record) throws Exception {
        return connect(record, RpcRdmaSettings.builder().mpa(BULK_MPA).build());
    }

    /**
     * Mounts knfsd over RDMA, recording our side's packets if {@code record}. When the first call
     * gets no reply at all (the knfsd trace then shows the call decoded only when our timeout closes
     * the connection) the case is {@linkplain #quarantined quarantined}; any other failure fails the
     * test, with the captures and knfsd's diagnostics.
     */
    private NfsClient connect(boolean record, RpcRdmaSettings settings) throws Exception {
        captures.clear();
        meters.clear();
        // Every case records our side to a file too (deleted when it passes): knfsd once parsed a
        // WRITE Call three octets late (its trace: xid 0x89000000, rdma_vers 0x01000000) and we
        // could not tell whether we had sent it so.
        rnic = recordedRnic("nfs-client", ch -> {
                    if (record) {
                        ByteArrayOutputStream capture = new ByteArrayOutputStream();
                        captures.add(capture);
                        ch.pipeline().addLast(PcapWriteHandler.builder().build(capture));
                    }
                })
                .build();
        long start = System.nanoTime();
        try {
            client = NfsClient.builder(knfsd.mountAddress()).export(knfsd.exportPath())
                    .rdma(rnic, knfsd.rdmaAddress(), settings)
                    .timeout(CALL_TIMEOUT)
                    .connect();
        } catch (Exception | Error e) {
            Files.createDirectories(CAPTURES);
            for (int i = 0; i < captures.size(); i++) {
                Files.write(CAPTURES.resolve("ours-against-knfsd-failed-" + i + ".pcap"),
                        captures.get(i).toByteArray());
            }
            if (causedBy(e, RpcTimeoutException.class)) {
                rnic.close();
                rnic = null;
                throw quarantined(e);
            }
            throw new AssertionError("cannot mount knfsd over RDMA: " + e + "\n" + knfsd.diagnostics()
                    + "--- peer sockets ---\n" + peer.exec("ss -tan").stdout(), e);
        }
        LOG.info("mounted knfsd's {} over RDMA in {} ms: rsize {}, wsize {}", knfsd.exportPath(),
                (System.nanoTime() - start) / 1_000_000, client.readSize(), client.writeSize());
        return client;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private double invalidatingReplies() {
        return received("send_with_invalidate") + received("send_with_se_and_invalidate");
    }

    private double terminates() {
        return meters.find("iwarp.rdmap.terminates").counters().stream().mapToDouble(Counter::count).sum();
    }

    private double memoryRegions() {
        return meters.get("iwarp.rnic.memory.regions").gauge().value();
    }

    /**
     * ULB-R-006, RPC-R-022, RPC-R-048, CMPD-R-002, CMPD-R-007, MPA2-R-005: 1 MiB put and got; knfsd's
     * MPA Reply carries its RFC 8797 block. Linux 6.1's svcrdma announces R=0 there, yet replies
     * with Send with Invalidate because we set R (it looks only at the client's bit), which RFC 8797
     * §4.1 does not allow: we must take those invalidations as they come, and do.
     */
    @Test
    void putAndGetOneMebibyteWithChecksums() throws Exception {
        NfsClient nfs = connect(true);
        putAndGet(nfs, 1 << 20);

        boolean invalidation = ((RpcRdmaRequester) nfs.transport()).remoteInvalidation();
        double invalidatingReplies = invalidatingReplies();
        nfs.close();
        client = null;
        rnic.close();
        rnic = null;
        Files.createDirectories(CAPTURES);
        Path pcap = CAPTURES.resolve("ours-against-knfsd.pcap");
        Files.write(pcap, captures.get(0).toByteArray());
        MpaStartupOnWire startup = MpaStartupOnWire.firstIn(pcap);
        RpcRdmaBlock ours = startup.request().rpcRdmaBlock().orElseThrow();
        RpcRdmaBlock knfsds = startup.reply().rpcRdmaBlock().orElseThrow(
                () -> new AssertionError("no RFC 8797 block in knfsd's Reply"));
        LOG.info("our MPA Request: IRD {}, ORD {}, {}; knfsd's Reply: IRD {}, ORD {}, {}; {} replies with Send with"
                + " Invalidate", startup.request().ird(), startup.request().ord(), ours, startup.reply().ird(),
                startup.reply().ord(), knfsds, invalidatingReplies);

        assertThat(startup.reply().enhanced()).isTrue();
        assertThat(startup.reply().ord()).as("knfsd's ORD <= our IRD").isLessThanOrEqualTo(startup.request().ird());
        assertThat(knfsds.version()).isEqualTo(1);
        assertThat(knfsds.sendSize()).isEqualTo(4096);
        assertThat(knfsds.receiveSize()).isEqualTo(4096);
        assertThat(ours.remoteInvalidation()).isTrue();
        assertThat(invalidation).as("agreed per RFC 8797 §4.1").isEqualTo(knfsds.remoteInvalidation());
        assertThat(invalidatingReplies).as("Send with Invalidate from svcrdma (6.1) since we set R").isPositive();
    }

    /** CMPD-R-009: with our R bit clear, knfsd replies with plain Sends only; the data still moves. */
    @Test
    void knfsdRepliesWithPlainSendsWhenWeClearR() throws Exception {
        NfsClient nfs = connect(false, RpcRdmaSettings.builder().remoteInvalidation(false).mpa(BULK_MPA).build());
        putAndGet(nfs, 256 * 1024);

        assertThat(((RpcRdmaRequester) nfs.transport()).remoteInvalidation()).isFalse();
        assertThat(received("send")).isPositive();
        assertThat(invalidatingReplies()).isZero();
    }

    /** As {@link #putAndGetOneMebibyteWithChecksums()} with 64 MiB, several calls in flight. */
    @Test
    @Tag("slow")
    void putAndGetSixtyFourMebibytesWithChecksums() throws Exception {
        putAndGet(connect(false), 64 << 20);
    }

    /**
     * Puts {@code size + 777} octets and gets {@code size}; every memory region registered for a
     * call is gone afterwards, whether knfsd invalidated it or we did, and no Terminate was seen.
     */
    private void putAndGet(NfsClient nfs, int size) throws Exception {
        double regions = memoryRegions();
        RoundTrip t = putAndGet(OurClient.of(nfs), size + 777, size);

        assertThat(nfs.list("")).extracting(EntryPlus3::name).contains("put.bin", "get.bin");
        assertThat(nfs.stat("put.bin").size()).isEqualTo(size + 777);
        assertThat(memoryRegions()).as("registered memory regions after the calls").isEqualTo(regions);
        assertThat(terminates()).as("Terminate messages").isZero();
        LOG.info("{} octets: put in {} ms, got in {} ms (rsize {}, wsize {})", size, t.putMillis(), t.getMillis(),
                nfs.readSize(), nfs.writeSize());
    }
}
