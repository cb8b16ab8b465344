package org.iwarp4j.tools.rping;

import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.tools.rping.internal.RpingFailure;
import org.iwarp4j.tools.rping.internal.RpingLog;
import org.iwarp4j.tools.rping.internal.RpingRdmaInfo;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionOpcode;

/**
 * An rping peer with a deliberate fault, on the same verbs as ours: a server that corrupts the data
 * it writes back, reads with a wrong STag or closes the connection early, a client that advertises
 * a wrong STag.
 */
public final class MisbehavingPeer implements AutoCloseable {

    public enum Fault {
        /** Server: flips one octet of the ping data between its RDMA Read and its RDMA Write. */
        CORRUPT_WRITE,
        /** Server: RDMA Reads the client's start buffer with the advertised STag plus one. */
        BAD_READ_STAG,
        /** Client: advertises its start buffer with a wrong STag. */
        BAD_ADVERTISED_STAG,
        /** Server: closes the connection (in order) as soon as it is up, before any ping. */
        CLOSE_AFTER_HANDSHAKE,
        /** Server: serves one ping, then closes the connection (in order). */
        CLOSE_AFTER_FIRST_PING
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Fault fault;
    private final RpingEndpoint endpoint;
    private final Listener listener;
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    public final CompletableFuture<Void> done;

    private MisbehavingPeer(Fault fault, RpingOptions options, InetSocketAddress server) throws Exception {
        this.fault = fault;
        this.endpoint = new RpingEndpoint(options, new RpingLog(silent(), silent(), false));
        endpoint.postReceive();
        if (options.server()) {
            listener = endpoint.rnic.listen(options.socketAddress(), options.mpaSettings(),
                    r -> r.accept(endpoint.queuePair));
            // Closed from the event loop the moment the connection is up: as early as a peer can.
            done = fault == Fault.CLOSE_AFTER_HANDSHAKE
                    ? endpoint.queuePair.established().thenCompose(qp -> qp.close()).thenApply(qp -> null)
                    : CompletableFuture.runAsync(this::serve, thread);
        } else {
            listener = null;
            endpoint.queuePair.connect(server).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            done = CompletableFuture.runAsync(this::advertiseWrongly, thread);
        }
    }

    public static MisbehavingPeer server(Fault fault) throws Exception {
        return new MisbehavingPeer(fault, RpingOptions.serverBuilder().address(InetAddress.getLoopbackAddress())
                .port(0).timeout(TIMEOUT).build(), null);
    }

    public static MisbehavingPeer client(Fault fault, InetSocketAddress server) throws Exception {
        return new MisbehavingPeer(fault, RpingOptions.clientBuilder(server.getAddress()).port(server.getPort())
                .timeout(TIMEOUT).build(), server);
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    private static PrintWriter silent() {
        return new PrintWriter(Writer.nullWriter());
    }

    /** rping's server loop with the fault in it; ends when the client goes away or a completion fails. */
    private void serve() {
        try {
            endpoint.queuePair.established().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            while (true) {
                RpingRdmaInfo source = endpoint.receive("start");
                int stag = fault == Fault.BAD_READ_STAG ? source.rkey() + 1 : source.rkey();
                endpoint.queuePair.postSend(SendWorkRequest.rdmaRead(RpingEndpoint.RDMA_ID, stag, source.buf(),
                        endpoint.rdmaMr.sge(0, source.size())));
                endpoint.completions.await(WorkCompletionOpcode.RDMA_READ, "read");
                if (fault == Fault.CORRUPT_WRITE) {
                    endpoint.rdmaBuf.setByte(20, endpoint.rdmaBuf.getByte(20) ^ 0x20);
                }
                endpoint.send(RpingRdmaInfo.GO_AHEAD, "go ahead");
                RpingRdmaInfo sink = endpoint.receive("sink");
                endpoint.queuePair.postSend(SendWorkRequest.rdmaWrite(RpingEndpoint.RDMA_ID, sink.rkey(), sink.buf(),
                        endpoint.rdmaMr.sge(0, source.size())));
                endpoint.completions.await(WorkCompletionOpcode.RDMA_WRITE, "write");
                endpoint.send(RpingRdmaInfo.GO_AHEAD, "go ahead");
                if (fault == Fault.CLOSE_AFTER_FIRST_PING) {
                    // In order: the go ahead goes out before the FIN.
                    endpoint.queuePair.close().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    return;
                }
            }
        } catch (RpingFailure e) {
            // The client disconnected or the fault ended the connection: done.
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Advertises the start buffer with STag + 1, then waits for the server to give up. */
    private void advertiseWrongly() {
        RpingRdmaInfo start = RpingEndpoint.describe(endpoint.startMr, endpoint.startMr.length());
        try {
            endpoint.send(new RpingRdmaInfo(start.buf(), start.rkey() + 1, start.size()), "start");
        } catch (RpingFailure e) {
            throw new IllegalStateException(e);
        }
        endpoint.queuePair.closeFuture().join();
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        endpoint.close();
        thread.shutdownNow();
    }
}
