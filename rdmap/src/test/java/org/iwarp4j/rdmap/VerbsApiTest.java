package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaRejectedException;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/** What the verbs API promises beyond the wire: memory kinds, rejection, local error statuses. */
class VerbsApiTest {

    @Test
    void directAndHeapByteBuffersCanBeRegisteredAndWrittenRemotely() throws Exception {
        ByteBuffer direct = ByteBuffer.allocateDirect(256);
        ByteBuffer heap = ByteBuffer.allocate(256);
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(16).writeBytes("written remotely".getBytes());
        MemoryRegion[] targets = new MemoryRegion[2];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> {
            ProtectionDomain pd = server.settings().protectionDomain();
            targets[0] = pd.register(direct, EnumSet.of(Access.REMOTE_WRITE));
            targets[1] = pd.register(heap, EnumSet.of(Access.REMOTE_WRITE));
        }, client -> { })) {
            MemoryRegion src = pair.clientPd.register(source, EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < 2; i++) {
                pair.client.postSend(SendWorkRequest.rdmaWrite(i, targets[i].stag(),
                        targets[i].baseTaggedOffset() + 100, src.sge()));
            }
            pair.client.postSend(SendWorkRequest.rdmaRead(9, targets[0].stag(), targets[0].baseTaggedOffset(),
                    src.sge(0, 0))); // zero-length Read: a fence for the Writes (RFC 5040 §5.5)
            for (int i = 0; i < 3; i++) {
                assertThat(RdmaPair.next(pair.clientCq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            }
            byte[] got = new byte[16];
            direct.get(100, got);
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("written remotely");
            heap.get(100, got);
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("written remotely");
            assertThat(targets[0].baseTaggedOffset()).isNotEqualTo(targets[1].baseTaggedOffset());
        } finally {
            source.release();
        }
    }

    @Test
    void listenerRejectsWithPrivateDataAndTheConnectorLearnsWhy() throws Exception {
        try (Rnic server = Rnic.builder().eventLoopThreads(1).build();
             Rnic client = Rnic.builder().eventLoopThreads(1).build()) {
            CompletableFuture<byte[]> seen = new CompletableFuture<>();
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> {
                        seen.complete(request.privateData());
                        return request.reject("go away".getBytes(StandardCharsets.US_ASCII));
                    });
            ProtectionDomain pd = client.allocateProtectionDomain();
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, client.createCompletionQueue(4))
                    .mpa(MpaSettings.builder().privateData("hello?".getBytes(StandardCharsets.US_ASCII)).build())
                    .build());
            Throwable failure = catchThrowable(() -> qp.connect(listener.localAddress()).get(10, TimeUnit.SECONDS));
            assertThat(failure).isInstanceOf(ExecutionException.class).cause().isInstanceOf(MpaRejectedException.class);
            MpaRejectedException rejected = (MpaRejectedException) failure.getCause();
            assertThat(rejected.byPeer()).isTrue();
            assertThat(new String(rejected.ulpPrivateData(), StandardCharsets.US_ASCII)).isEqualTo("go away");
            assertThat(new String(seen.get(), StandardCharsets.US_ASCII)).isEqualTo("hello?");
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            listener.close();
        }
    }

    @Test
    void localSegmentsOutsideTheirRegionOrWithoutRightsCompleteInError() throws Exception {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> { }, client -> { })) {
            MemoryRegion readOnly = pair.clientPd.register(memory, EnumSet.noneOf(Access.class));
            MemoryRegion remote = pair.serverPd.register(memory.slice(0, 32), EnumSet.allOf(Access.class));
            // A gather list past the end of its region: local length error, nothing sent.
            pair.client.postSend(SendWorkRequest.rdmaWrite(1, remote.stag(), remote.baseTaggedOffset(),
                    readOnly.sge(60, 8)));
            // An RDMA Read into a region without LOCAL_WRITE: local protection error.
            pair.client.postSend(SendWorkRequest.rdmaRead(2, remote.stag(), remote.baseTaggedOffset(),
                    readOnly.sge(0, 8)));
            WorkCompletion first = RdmaPair.next(pair.clientCq);
            WorkCompletion second = RdmaPair.next(pair.clientCq);
            assertThat(first.workRequestId()).isEqualTo(1);
            assertThat(first.status()).isEqualTo(WorkCompletionStatus.LOCAL_LENGTH_ERROR);
            assertThat(second.workRequestId()).isEqualTo(2);
            assertThat(second.status()).isEqualTo(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
            // Posting beyond the send queue depth is refused at once.
            assertThat(pair.client.settings().sendQueueDepth()).isEqualTo(128);
            readOnly.close();
            remote.close();
        } finally {
            memory.release();
        }
    }

    @Test
    void solicitedEventFlagReachesTheReceiveCompletion() throws Exception {
        // RDMAP-R-022: Send with SE is delivered with its Solicited Event flag; a plain Send without.
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
        MemoryRegion[] region = new MemoryRegion[1];
        try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), server -> {
            region[0] = server.settings().protectionDomain().register(memory, EnumSet.of(Access.LOCAL_WRITE));
            server.postReceive(new ReceiveWorkRequest(1, region[0].sge(0, 32)),
                    new ReceiveWorkRequest(2, region[0].sge(32, 32)));
        }, client -> { })) {
            ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(8).writeLong(42);
            try {
                MemoryRegion src = pair.clientPd.register(source, EnumSet.noneOf(Access.class));
                pair.client.postSend(SendWorkRequest.send(10, src.sge()),
                        SendWorkRequest.sendWithSolicitedEvent(11, src.sge()));
                WorkCompletion plain = RdmaPair.next(pair.serverCq);
                WorkCompletion solicited = RdmaPair.next(pair.serverCq);
                assertThat(plain.workRequestId()).isEqualTo(1);
                assertThat(plain.solicitedEvent()).isFalse();
                assertThat(solicited.workRequestId()).isEqualTo(2);
                assertThat(solicited.solicitedEvent()).isTrue();
                assertThat(solicited.byteLength()).isEqualTo(8);
                src.close();
            } finally {
                source.release();
            }
        } finally {
            memory.release();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(Transport.class)
    void everyTransportCarriesWritesAndReads(Transport transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(transport.isAvailable(),
                () -> transport + " is not available here: " + transport.unavailabilityCause().orElse(""));
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(8192).writeZero(8192);
        try (Rnic server = Rnic.builder().eventLoopThreads(1).transport(transport).build();
             Rnic client = Rnic.builder().eventLoopThreads(1).transport(transport).build()) {
            assertThat(server.transport()).isEqualTo(transport);
            ProtectionDomain serverPd = server.allocateProtectionDomain();
            MemoryRegion target = serverPd.register(memory.slice(0, 4096), EnumSet.allOf(Access.class));
            QueuePair serverQp = server.createQueuePair(
                    QueuePairSettings.builder(serverPd, server.createCompletionQueue(8)).build());
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> request.accept(serverQp));
            ProtectionDomain pd = client.allocateProtectionDomain();
            MemoryRegion local = pd.register(memory.slice(4096, 4096), EnumSet.of(Access.LOCAL_WRITE));
            memory.setBytes(4096, "transport".getBytes(StandardCharsets.US_ASCII));
            CompletionQueue cq = client.createCompletionQueue(8);
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, cq).build());
            qp.connect(listener.localAddress()).get(10, TimeUnit.SECONDS);
            qp.postSend(SendWorkRequest.rdmaWrite(1, target.stag(), target.baseTaggedOffset(), local.sge(0, 9)),
                    SendWorkRequest.rdmaRead(2, target.stag(), target.baseTaggedOffset(), local.sge(100, 9)));
            assertThat(RdmaPair.next(cq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(RdmaPair.next(cq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(memory.toString(0, 9, StandardCharsets.US_ASCII)).isEqualTo("transport");
            assertThat(memory.toString(4196, 9, StandardCharsets.US_ASCII)).isEqualTo("transport");
            qp.close().get(10, TimeUnit.SECONDS);
            listener.close();
        } finally {
            memory.release();
        }
    }
}
