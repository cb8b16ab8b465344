package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.RpcRdmaPair.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rpcrdma.internal.wire.RdmaSegment;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.WriteChunk;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.Test;

/** One and several Write chunks (RFC 8166 §3.4.6, §4.3.2), with {@link PairProgram}. */
class WriteChunksTest {

    private static RpcRdmaPair pair() throws Exception {
        return pair(1000, io.netty.buffer.PooledByteBufAllocator.DEFAULT);
    }

    private static RpcRdmaPair pair(int maxSegmentSize, io.netty.buffer.ByteBufAllocator serverAlloc) throws Exception {
        RpcRdmaSettings s = RpcRdmaSettings.builder().maxSegmentSize(maxSegmentSize)
                .binding(UpperLayerBinding.of(List.of(new EchoBinding(), PairProgram.binding()))).build();
        RpcRdmaPair p = new RpcRdmaPair(s, s, serverAlloc);
        p.dispatcher.register(PairProgram.create());
        return p;
    }

    private static List<WriteChunk> returnedWriteList(RpcRdmaPair p, int index) {
        return ((RpcRdmaHeader.RdmaMsg) p.serverWire.sent().get(index).header()).chunks().writeList();
    }

    private static void assertSource(ByteBuf b, int length) {
        try {
            assertThat(b.readableBytes()).isEqualTo(length);
            assertThat(EchoProgram.isSource(b)).isTrue();
        } finally {
            b.release();
        }
    }

    @Test
    void twoResultsFillTwoWriteChunksInOrder() throws Exception { // RPC-R-049, RPC-R-016, RPC-R-029
        try (RpcRdmaPair p = pair()) {
            List<ByteBuf> r = await(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                    a -> a.writeInt(2500).writeInt(1999),
                    in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20))));
            assertSource(r.get(0), 2500);
            assertSource(r.get(1), 1999);
            List<WriteChunk> provided = ((RpcRdmaHeader.RdmaMsg) p.clientWire.sent().get(0).header()).chunks().writeList();
            assertThat(provided).extracting(WriteChunk::length).containsExactly(2500L, 1999L);
            List<WriteChunk> returned = returnedWriteList(p, 0);
            assertThat(returned.get(0).segments()).extracting(RdmaSegment::length).containsExactly(1000L, 1000L, 500L);
            assertThat(returned.get(1).segments()).extracting(RdmaSegment::length).containsExactly(1000L, 999L);
            assertThat(p.serverWire.written()).isEqualTo(4499);
            assertThat(p.serverWire.sent().get(0).payloadLength()).isEqualTo(24 + 4 + 4);
        }
    }

    @Test
    void aMebibyteResultInAWriteChunkLeavesTheSendBufferTheSizeOfTheInlinePart() throws Exception {
        // The 1 MiB result goes by RDMA Write from its own buffer; the Reply's Send buffer holds only
        // the header and the reduced Payload stream. Sizing it by the whole Reply allocated (and had
        // the pool create and zero) 1 MiB per READ reply for nothing.
        RecordingAllocator alloc = new RecordingAllocator();
        try (RpcRdmaPair p = pair(1 << 20, alloc)) {
            List<ByteBuf> r = await(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                    a -> a.writeInt(1 << 20).writeInt(4),
                    in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20))));
            assertSource(r.get(0), 1 << 20);
            assertSource(r.get(1), 4);
            assertThat(p.serverWire.written()).isEqualTo((1 << 20) + 4);
            int inline = p.serverWire.sent().get(0).payloadLength();
            assertThat(inline).isLessThan(100);
            assertThat(alloc.directRequests()).as("the server's direct buffers").isNotEmpty();
            assertThat(alloc.largestDirectRequest()).as("largest direct buffer the server asked for")
                    .isLessThanOrEqualTo(4096);
        }
    }

    /** The Write chunks of the {@code index}-th Call the client sent. */
    private static List<WriteChunk> providedWriteList(RpcRdmaPair p, int index) {
        return ((RpcRdmaHeader.RdmaMsg) p.clientWire.sent().get(index).header()).chunks().writeList();
    }

    private static List<ByteBuf> mebibyteAndFour(RpcRdmaPair p) throws Exception {
        return await(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                a -> a.writeInt(1 << 20).writeInt(4),
                in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20))));
    }

    @Test
    void mebibyteResultsLandInTheConnectionsKeptMemoryUnderAFreshStagEachCall() throws Exception {
        // A stream of 1 MiB READ-like Calls: the Write chunk targets are the connection's two kept
        // buffers, lent again once the caller released the Reply (no 1 MiB allocation per Call),
        // while every Call registers them afresh and the Responder's Send with Invalidate ends
        // that registration (RPC-R-025, CMPD-R-007): memory is reused, an STag never is.
        try (RpcRdmaPair p = pair(1 << 20, io.netty.buffer.PooledByteBufAllocator.DEFAULT)) {
            java.util.Set<Long> addresses = new java.util.HashSet<>();
            int calls = 12;
            for (int i = 0; i < calls; i++) {
                List<ByteBuf> r = mebibyteAndFour(p);
                addresses.add(r.get(0).memoryAddress());
                assertSource(r.get(0), 1 << 20);
                assertSource(r.get(1), 4);
            }
            assertThat(addresses).as("memory the 1 MiB results landed in").hasSize(1);
            assertThat(p.requester.endpoint().keptDataBuffers()).isEqualTo(2);
            java.util.Set<Integer> stags = new java.util.HashSet<>();
            for (int i = 0; i < calls; i++) {
                List<WriteChunk> provided = providedWriteList(p, i);
                assertThat(provided).hasSize(2);
                assertThat(provided.get(0).segments()).extracting(RdmaSegment::length).containsExactly(1L << 20);
                provided.forEach(c -> c.segments().forEach(s -> stags.add(s.handle())));
                assertThat(p.serverWire.sent().get(i).stag()).as("the Reply's Send with Invalidate")
                        .hasValue(provided.get(0).segments().get(0).handle());
            }
            assertThat(stags).as("STags of the Write chunks of %d Calls", calls).hasSize(2 * calls);
            assertThat(p.serverWire.written()).isEqualTo(calls * ((1L << 20) + 4));
        }
    }

    @Test
    void aResultTheCallerStillHoldsIsNeitherLentAgainNorOverwritten() throws Exception {
        try (RpcRdmaPair p = pair(1 << 20, io.netty.buffer.PooledByteBufAllocator.DEFAULT)) {
            List<ByteBuf> held = mebibyteAndFour(p);
            List<List<ByteBuf>> later = new java.util.ArrayList<>();
            // each Call needs two targets: from the fifth Call on every kept buffer (8 by default) is
            // held, and its targets are allocated memory
            for (int i = 0; i < 5; i++) {
                later.add(mebibyteAndFour(p));
                assertThat(later.get(i).get(0).memoryAddress()).isNotEqualTo(held.get(0).memoryAddress());
            }
            assertThat(p.requester.endpoint().keptDataBuffers()).as("the bound")
                    .isEqualTo(RpcRdmaSettings.defaults().keptDataBuffers()).isEqualTo(8);
            assertSource(held.get(0), 1 << 20); // unchanged by the Calls after it
            assertSource(held.get(1), 4);
            for (List<ByteBuf> r : later) {
                assertSource(r.get(0), 1 << 20);
                assertSource(r.get(1), 4);
            }
            List<ByteBuf> after = mebibyteAndFour(p);
            assertThat(after.get(0).readableBytes()).isEqualTo(1 << 20);
            assertSource(after.get(0), 1 << 20);
            assertSource(after.get(1), 4);
        }
    }

    @Test
    void aWindowOfCallsInFlightLandsInKeptMemoryFromTheSecondWindowOn() throws Exception {
        // NFS clients keep several READs in flight (8 in iwarp nfs bench): with only two kept
        // buffers, the rest of every window took fresh 1 MiB buffers from the allocator.
        try (RpcRdmaPair p = pair(1 << 20, io.netty.buffer.PooledByteBufAllocator.DEFAULT)) {
            java.util.Set<Long> addresses = new java.util.HashSet<>();
            int window = 4; // two targets each: the 8 kept buffers
            for (int round = 0; round < 5; round++) {
                List<java.util.concurrent.CompletableFuture<List<ByteBuf>>> inFlight = new java.util.ArrayList<>();
                for (int i = 0; i < window; i++) {
                    inFlight.add(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                            a -> a.writeInt(1 << 20).writeInt(4),
                            in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20))));
                }
                for (java.util.concurrent.CompletableFuture<List<ByteBuf>> f : inFlight) {
                    List<ByteBuf> r = await(f);
                    addresses.add(r.get(0).memoryAddress());
                    assertSource(r.get(0), 1 << 20);
                    assertSource(r.get(1), 4);
                }
            }
            assertThat(addresses).as("memory the 1 MiB results of %d Calls landed in", 5 * window).hasSize(window);
            assertThat(p.requester.endpoint().keptDataBuffers()).isEqualTo(2 * window);
        }
    }

    @Test
    void theKeptBuffersFollowTheSettingAndNeverExceedTheCredits() throws Exception {
        RpcRdmaSettings two = RpcRdmaSettings.builder().maxSegmentSize(1 << 20).keptDataBuffers(2)
                .binding(UpperLayerBinding.of(List.of(new EchoBinding(), PairProgram.binding()))).build();
        RpcRdmaSettings oneCredit = two.toBuilder().keptDataBuffers(64).credits(1).build();
        for (RpcRdmaSettings s : List.of(two, oneCredit)) {
            try (RpcRdmaPair p = new RpcRdmaPair(s, s, io.netty.buffer.PooledByteBufAllocator.DEFAULT)) {
                p.dispatcher.register(PairProgram.create());
                List<List<ByteBuf>> held = new java.util.ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    held.add(mebibyteAndFour(p));
                }
                assertThat(p.requester.endpoint().keptDataBuffers()).as("kept with %s", s.keptDataBuffers() == 2
                        ? "keptDataBuffers(2)" : "credits(1)").isEqualTo(Math.min(s.keptDataBuffers(), s.credits()));
                for (List<ByteBuf> r : held) {
                    assertSource(r.get(0), 1 << 20);
                    assertSource(r.get(1), 4);
                }
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RpcRdmaSettings.builder().keptDataBuffers(65))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RpcRdmaSettings.builder().keptDataBuffers(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aResultInTheUnionArmWithoutDataLeavesTheNextResultToTheFirstChunk() throws Exception {
        // RPC-R-050, RPC-R-051
        try (RpcRdmaPair p = pair()) {
            List<ByteBuf> r = await(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.MAYBE,
                    a -> a.writeBoolean(false).writeInt(3000), in -> {
                        assertThat(in.readBoolean()).isFalse();
                        return List.of(in.readDdpEligibleOpaque(1 << 20));
                    }));
            assertSource(r.get(0), 3000);
            List<WriteChunk> returned = returnedWriteList(p, 0);
            assertThat(returned.get(0).length()).isEqualTo(3000);
            // The last chunk stays unused: the same segment count, every length 0.
            assertThat(returned.get(1).segments()).hasSize(3).extracting(RdmaSegment::length).containsOnly(0L);
        }
    }

    /**
     * ULB-R-022: TWO has two DDP-eligible results; a Call offering one Write chunk gets the first
     * result written into it and the second inline after its length word, padded. The Call is
     * hand-made, so the Reply's octets are what our Responder put on the wire.
     */
    @Test
    void aResultBeyondTheWriteListComesBackInline() throws Exception {
        try (RpcRdmaPair p = pair()) {
            ByteBuf memory = Unpooled.directBuffer(2500).writeZero(2500);
            RawPeer raw = RawPeer.requester(p.clientRnic, p.server.localAddress());
            try (MemoryRegion sink = raw.qp.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                raw.send(Messages.concat(Messages.fixed(0x31, 1, 1, 0), Messages.oneWriteChunk(sink, 1, 2500),
                        Messages.call(0x31, PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                                Messages.words(2500, 5))));
                byte[] reply = raw.receive();
                long offset = sink.baseTaggedOffset();
                int grant = RpcRdmaSettings.defaults().credits();
                // RDMA_MSG; the one Write chunk back with 2500 octets written; no Reply chunk; then the
                // accepted Reply: the first result's length word, the second result inline.
                assertThat(reply).isEqualTo(Messages.concat(Messages.words(0x31, 1, grant, 0, 0, 1, 1, sink.stag(), 2500,
                        (int) (offset >>> 32), (int) offset, 0, 0, 0x31, 1, 0, 0, 0, 0, 2500, 5),
                        io.netty.buffer.ByteBufUtil.getBytes(EchoProgram.source(5, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)), new byte[3]));
                assertThat(EchoProgram.isSource(memory)).isTrue();
            } finally {
                raw.close();
                memory.release();
            }
        }
    }

    @Test
    void aResultOfZeroOctetsNeedsNoWriteAndComesBackUnused() throws Exception { // RPC-R-051
        try (RpcRdmaPair p = pair()) {
            List<ByteBuf> r = await(p.client.call(PairProgram.PROGRAM, PairProgram.VERSION, PairProgram.TWO,
                    a -> a.writeInt(0).writeInt(1500),
                    in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20))));
            assertSource(r.get(0), 0);
            assertSource(r.get(1), 1500);
            List<WriteChunk> returned = returnedWriteList(p, 0);
            assertThat(returned.get(0).isEmpty()).isTrue(); // provided empty (a zero-octet result), returned empty
            assertThat(returned.get(1).length()).isEqualTo(1500);
        }
    }

    /**
     * A Reply whose second result cannot be registered (the server's STag table is full after the
     * first took the last STag) fails and ends the connection (RFC 8166 §4.5.4); what it had
     * registered and allocated is given back. The first source's region stayed registered for the
     * RNIC's life, and the Reply's buffers were never released (the thirteenth review's item 2):
     * every such failure made the shortage of STags worse.
     */
    @Test
    void aReplyWhoseSecondResultCannotBeRegisteredGivesBackTheFirstRegistration() throws Exception {
        java.util.ArrayList<org.iwarp4j.rdmap.MemoryRegion> fillers = new java.util.ArrayList<>();
        ByteBuf filler = io.netty.buffer.Unpooled.directBuffer(1).writeZero(1);
        try (RpcRdmaPair p = pair()) {
            org.iwarp4j.rdmap.ProtectionDomain pd = p.serverRnic.allocateProtectionDomain();
            java.util.Set<org.iwarp4j.ddp.Access> access = java.util.EnumSet.of(org.iwarp4j.ddp.Access.LOCAL_WRITE);
            try {
                while (true) {
                    fillers.add(pd.register(filler, access));
                }
            } catch (IllegalStateException full) {
                assertThat(full).hasMessageContaining("STag table full");
            }
            fillers.remove(fillers.size() - 1).close(); // one STag left: the first result's source takes it

            java.util.concurrent.CompletableFuture<List<ByteBuf>> call = p.client.call(PairProgram.PROGRAM,
                    PairProgram.VERSION, PairProgram.TWO, a -> a.writeInt(2500).writeInt(1999),
                    in -> List.of(in.readDdpEligibleOpaque(1 << 20), in.readDdpEligibleOpaque(1 << 20)));
            assertThat(call).failsWithin(RpcRdmaPair.WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            p.client.close();
            p.server.close();
            fillers.forEach(org.iwarp4j.rdmap.MemoryRegion::close);
            fillers.clear();
            // With no connection and no filler left, nothing of the server's may stay registered.
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            double regions;
            while ((regions = p.serverMeters.get("iwarp.rnic.memory.regions").tag("rnic", p.serverRnic.name())
                    .gauge().value()) != 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(regions).as("memory regions the server still has registered").isZero();
        } finally {
            fillers.forEach(org.iwarp4j.rdmap.MemoryRegion::close);
            filler.release();
        }
    }
}
