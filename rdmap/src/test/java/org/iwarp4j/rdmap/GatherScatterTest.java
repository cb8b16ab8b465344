package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Random;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * Gather lists on the send side and scatter lists on the receive side (ibv_sge lists): the
 * message is the concatenation of the gather elements in order, and a received Send fills the
 * scatter elements in order (RDMAP-R-020, DDP-R-037); octets outside the named elements are
 * untouched. Messages are larger than MULPDU, so segment boundaries fall inside elements.
 */
class GatherScatterTest {

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aSendGatheredFromThreeElementsOfTwoRegionsIsScatteredOverTwoElements() throws Exception {
        // RDMAP-R-020: gather A[100, 1100) + B[50, 2550) + A[3000, 3700) = 4200 octets; scatter into
        // X[10, 2010) then Y[5, 5005): 2000 + 2200 octets, completion length 4200.
        ByteBuf a = ByteBufAllocator.DEFAULT.directBuffer(4096).writeBytes(random(4096, 1));
        ByteBuf b = ByteBufAllocator.DEFAULT.heapBuffer(4096).writeBytes(random(4096, 2));
        ByteBuf x = ByteBufAllocator.DEFAULT.directBuffer(4096).writeZero(4096);
        ByteBuf y = ByteBufAllocator.DEFAULT.heapBuffer(8192).writeZero(8192);
        try {
            MemoryRegion[] server = new MemoryRegion[2];
            try (RdmaPair pair = new RdmaPair(MpaSettings.builder().emss(MpaSettings.DEFAULT_EMSS).build(), s -> {
                server[0] = s.settings().protectionDomain().register(x, RdmaPair.ALL);
                server[1] = s.settings().protectionDomain().register(y, RdmaPair.ALL);
                s.postReceive(new ReceiveWorkRequest(11, server[0].sge(10, 2000), server[1].sge(5, 5000)));
            }, c -> { })) {
                MemoryRegion ra = pair.clientPd.register(a, RdmaPair.ALL);
                MemoryRegion rb = pair.clientPd.register(b, RdmaPair.ALL);
                pair.client.postSend(SendWorkRequest.send(1, ra.sge(100, 1000), rb.sge(50, 2500), ra.sge(3000, 700)));

                WorkCompletion sent = RdmaPair.next(pair.clientCq);
                assertThat(sent.status()).as(sent.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(sent.byteLength()).isEqualTo(4200);
                WorkCompletion received = RdmaPair.next(pair.serverCq);
                assertThat(received.status()).as(received.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(received.workRequestId()).isEqualTo(11);
                assertThat(received.byteLength()).isEqualTo(4200);

                byte[] message = concat(ByteBufUtil.getBytes(a, 100, 1000), ByteBufUtil.getBytes(b, 50, 2500),
                        ByteBufUtil.getBytes(a, 3000, 700));
                byte[] scattered = concat(ByteBufUtil.getBytes(x, 10, 2000), ByteBufUtil.getBytes(y, 5, 2200));
                assertThat(scattered).isEqualTo(message);
                assertThat(ByteBufUtil.getBytes(x, 0, 10)).containsOnly(0);
                assertThat(ByteBufUtil.getBytes(x, 2010, 4096 - 2010)).containsOnly(0);
                assertThat(ByteBufUtil.getBytes(y, 0, 5)).containsOnly(0);
                assertThat(ByteBufUtil.getBytes(y, 2205, 8192 - 2205)).containsOnly(0);
            }
        } finally {
            a.release();
            b.release();
            x.release();
            y.release();
        }
    }

    @Test
    void aWriteGatheredFromTwoElementsLandsContiguously() throws Exception {
        // RDMAP-R-008: gather A[0, 3000) + B[1000, 2500) -> one Write of 4500 octets at target TO base + 7.
        ByteBuf a = ByteBufAllocator.DEFAULT.directBuffer(4096).writeBytes(random(4096, 3));
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(4096).writeBytes(random(4096, 4));
        ByteBuf target = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        try {
            MemoryRegion[] server = new MemoryRegion[1];
            try (RdmaPair pair = new RdmaPair(MpaSettings.builder().emss(MpaSettings.DEFAULT_EMSS).build(),
                    s -> server[0] = s.settings().protectionDomain().register(target, RdmaPair.ALL), c -> { })) {
                MemoryRegion ra = pair.clientPd.register(a, RdmaPair.ALL);
                MemoryRegion rb = pair.clientPd.register(b, RdmaPair.ALL);
                pair.client.postSend(SendWorkRequest.rdmaWrite(2, server[0].stag(), server[0].baseTaggedOffset() + 7,
                        ra.sge(0, 3000), rb.sge(1000, 1500)));
                WorkCompletion written = RdmaPair.next(pair.clientCq);
                assertThat(written.status()).as(written.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                assertThat(written.byteLength()).isEqualTo(4500);
                // A zero-length Read behind the Write: it completes only after the Write was placed.
                pair.client.postSend(SendWorkRequest.rdmaRead(3, server[0].stag(), server[0].baseTaggedOffset(),
                        ra.sge(0, 0)));
                WorkCompletion fence = RdmaPair.next(pair.clientCq);
                assertThat(fence.status()).as(fence.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);

                assertThat(ByteBufUtil.getBytes(target, 7, 4500))
                        .isEqualTo(concat(ByteBufUtil.getBytes(a, 0, 3000), ByteBufUtil.getBytes(b, 1000, 1500)));
                assertThat(ByteBufUtil.getBytes(target, 0, 7)).containsOnly(0);
                assertThat(ByteBufUtil.getBytes(target, 4507, 8192 - 4507)).containsOnly(0);
            }
        } finally {
            a.release();
            b.release();
            target.release();
        }
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
