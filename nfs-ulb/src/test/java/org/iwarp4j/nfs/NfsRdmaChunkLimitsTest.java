package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.NfsTcpFixture.get;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.binding.NfsUpperLayerBinding;
import org.iwarp4j.nfs.binding.ReplySizeLimits;
import org.iwarp4j.nfs.v3.Lookup3Res;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Nfs3Constants;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaErrorException;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.UpperLayerBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reply size estimation that falls short (RFC 8267 §3, §3.1): a client whose longest READLINK path
 * is 16 octets expects every READLINK reply to fit its 4 KiB inline threshold and provides no
 * chunk; a 4050-octet path does not fit, so the server answers ERR_CHUNK instead of the reply
 * (ULB-R-002: a reply resource overrun); the RPC fails without a retry (ULB-R-004, ULB-R-008: no
 * v3 procedure uses short Reply chunk retry), and the connection stays usable.
 */
class NfsRdmaChunkLimitsTest {

    @TempDir
    Path dir;

    @Test
    void replyResourceOverrunGetsErrChunk() throws Exception {
        Files.createSymbolicLink(dir.resolve("long"), Path.of("x".repeat(4050)));
        NfsUpperLayerBinding shortPaths = new NfsUpperLayerBinding(
                new ReplySizeLimits(16, ReplySizeLimits.DEFAULT_UNPREDICTABLE_ITEM_OCTETS, OptionalLong.empty()));
        try (Rnic serverRnic = Rnic.builder().build(); Rnic clientRnic = Rnic.builder().build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                     .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).start()) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic,
                    new InetSocketAddress("127.0.0.1", server.rdmaPort()),
                    RpcRdmaSettings.builder().inlineSize(4096).backchannelCredits(0).binding(shortPaths).build())
                    .get(10, TimeUnit.SECONDS);
            try (NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                    .transport(requester).connect()) {
                Lookup3Res link = get(client.lookup(client.root(), "long"));
                assertThat(link.status()).isEqualTo(Nfs3Status.NFS3_OK);
                assertThatThrownBy(() -> client.readlink(link.object()).get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(RpcRdmaErrorException.class)
                        .satisfies(e -> assertThat(((RpcRdmaErrorException) e).code())
                                .isEqualTo(RpcRdmaErrorException.Code.ERR_CHUNK));
                assertThat(requester.retransmissions()).isZero();
                // The connection survived: a short path still comes back.
                Files.createSymbolicLink(dir.resolve("short"), Path.of("abc"));
                Lookup3Res s = get(client.lookup(client.root(), "short"));
                assertThat(get(client.readlink(s.object())).data()).isEqualTo("abc");
            }
        }
    }

    /**
     * ULB-R-005: a client (here with a binding that halves READ's Write chunk) provides a Write
     * chunk smaller than the data; the server checks the chunk before any RDMA Write and answers
     * ERR_CHUNK; the file's first half still reads fine with a chunk that fits.
     */
    @Test
    void undersizedWriteChunkGetsErrChunk() throws Exception {
        Files.write(dir.resolve("data"), new byte[65536]);
        NfsUpperLayerBinding nfs = new NfsUpperLayerBinding();
        UpperLayerBinding halving = new UpperLayerBinding() {
            @Override
            public boolean covers(int program, int version) {
                return nfs.covers(program, version);
            }

            @Override
            public ReplyEstimate replyEstimate(RpcCallInfo call, XdrMessage callMessage) {
                ReplyEstimate e = nfs.replyEstimate(call, callMessage);
                return e.writeChunkSizes().isEmpty() ? e : new ReplyEstimate(e.maxReplySize(),
                        e.maxReducedReplySize(), List.of(e.writeChunkSizes().get(0) / 2));
            }

            @Override
            public boolean hasDdpEligibleArgument(RpcCallInfo call) {
                return nfs.hasDdpEligibleArgument(call);
            }

            @Override
            public boolean hasDdpEligibleResult(RpcCallInfo call) {
                return nfs.hasDdpEligibleResult(call);
            }
        };
        try (Rnic serverRnic = Rnic.builder().build(); Rnic clientRnic = Rnic.builder().build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                     .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).start()) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic,
                    new InetSocketAddress("127.0.0.1", server.rdmaPort()),
                    RpcRdmaSettings.builder().inlineSize(4096).backchannelCredits(0).binding(halving).build())
                    .get(10, TimeUnit.SECONDS);
            try (NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                    .transport(requester).connect()) {
                NfsFh3 file = client.lookupPath("data");
                assertThatThrownBy(() -> client.read(file, 0, 65536).get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(RpcRdmaErrorException.class)
                        .satisfies(e -> assertThat(((RpcRdmaErrorException) e).code())
                                .isEqualTo(RpcRdmaErrorException.Code.ERR_CHUNK));
                Read3Res half = get(client.read(file, 32768, 65536));
                try {
                    assertThat(half.count()).isEqualTo(32768);
                } finally {
                    half.release();
                }
            }
        }
    }

    /**
     * RPC-R-073, ULB-R-006 (RFC 8166 §6.1, RFC 8267 §4): a client that moves a WRITE's file handle,
     * which is not DDP-eligible, into a Read chunk (beside the data, which is), or adds a Read chunk
     * after the arguments, gets ERR_CHUNK, and the WRITE is not processed: the file is unchanged. The
     * same WRITE with only its data in a Read chunk is served.
     */
    @Test
    void aWriteWhoseFileHandleCameInAReadChunkIsErrChunkAndNotProcessed() throws Exception {
        Files.write(dir.resolve("data"), new byte[8192]);
        try (Rnic serverRnic = Rnic.builder().build(); Rnic clientRnic = Rnic.builder().build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                     .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                     .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).start()) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic,
                    new InetSocketAddress("127.0.0.1", server.rdmaPort()), RpcRdmaSettings.builder().inlineSize(4096)
                            .backchannelCredits(0).binding(new NfsUpperLayerBinding()).build())
                    .get(10, TimeUnit.SECONDS);
            NfsFh3 file;
            try (NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                    .transport(requester).connect()) {
                file = client.lookupPath("data");
            }
            requester = RpcRdmaRequester.connect(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()),
                    RpcRdmaSettings.builder().inlineSize(4096).backchannelCredits(0)
                            .binding(new NfsUpperLayerBinding()).build()).get(10, TimeUnit.SECONDS);
            try (RpcClient rpc = RpcClient.builder(requester).credential(new AuthSys(0, "t", 0, 0, new int[0])).build()) {
                byte[] ones = new byte[8192];
                java.util.Arrays.fill(ones, (byte) 1);
                for (Misplaced misplaced : new Misplaced[] {Misplaced.HANDLE, Misplaced.AFTER_THE_ARGUMENTS,
                    Misplaced.AFTER_A_WORD_PAST_THE_ARGUMENTS}) {
                    assertThatThrownBy(() -> write(rpc, file, ones, misplaced).get(10, TimeUnit.SECONDS))
                            .as(misplaced.toString())
                            .isInstanceOf(ExecutionException.class)
                            .cause().isInstanceOf(RpcRdmaErrorException.class)
                            .satisfies(e -> assertThat(((RpcRdmaErrorException) e).code())
                                    .isEqualTo(RpcRdmaErrorException.Code.ERR_CHUNK));
                    assertThat(Files.readAllBytes(dir.resolve("data"))).as(misplaced.toString()).containsOnly(0);
                }
                assertThat(write(rpc, file, ones, Misplaced.NOTHING).get(10, TimeUnit.SECONDS))
                        .isEqualTo(Nfs3Status.NFS3_OK);
                assertThat(Files.readAllBytes(dir.resolve("data"))).containsOnly(1);
            }
        }
    }

    /** What else a {@link #write} sends in a Read chunk besides its data. */
    private enum Misplaced {
        NOTHING,
        /** Its file handle, which is not DDP-eligible. */
        HANDLE,
        /** A chunk right after the last argument, which no argument takes: found only once they are decoded. */
        AFTER_THE_ARGUMENTS,
        /** The same after one more XDR word, which the arguments' decoding stops short of. */
        AFTER_A_WORD_PAST_THE_ARGUMENTS
    }

    /**
     * A FILE_SYNC WRITE3 of {@code data} at offset 0, its data DDP-eligible, and {@code misplaced}
     * in a Read chunk too, which no binding allows; completes with the status.
     */
    private static java.util.concurrent.CompletableFuture<Nfs3Status> write(RpcClient rpc, NfsFh3 file, byte[] data,
                                                                            Misplaced misplaced) {
        return rpc.call(Nfs3Constants.PROGRAM, Nfs3Constants.VERSION, Nfs3Constants.NFSPROC3_WRITE, args -> {
            if (misplaced == Misplaced.HANDLE) {
                args.writeDdpEligibleOpaque(io.netty.buffer.Unpooled.wrappedBuffer(file.data()), 64);
            } else {
                args.writeOpaque(file.data(), 64);
            }
            args.writeHyper(0).writeUnsignedInt(data.length).writeEnum(StableHow.FILE_SYNC.value())
                    .writeDdpEligibleOpaque(io.netty.buffer.Unpooled.wrappedBuffer(data), data.length);
            if (misplaced == Misplaced.AFTER_A_WORD_PAST_THE_ARGUMENTS) {
                args.writeInt(0);
            }
            if (misplaced == Misplaced.AFTER_THE_ARGUMENTS || misplaced == Misplaced.AFTER_A_WORD_PAST_THE_ARGUMENTS) {
                args.writeDdpEligibleOpaque(io.netty.buffer.Unpooled.wrappedBuffer(new byte[1024]), 1024);
            }
        }, results -> Nfs3Status.of(results.readInt()));
    }
}
