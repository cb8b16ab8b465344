package org.iwarp4j.rpcrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.rpcrdma.Messages.concat;
import static org.iwarp4j.rpcrdma.Messages.echoCall;
import static org.iwarp4j.rpcrdma.Messages.fixed;
import static org.iwarp4j.rpcrdma.Messages.words;

import java.net.InetSocketAddress;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaPrivateData;
import org.iwarp4j.rpcrdma.sample.EchoBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CMPD-R-003: what a Requester announces in its RFC 8797 block holds for that connection alone.
 * The same Requester reconnecting with other values (or none) gets Replies sized by what it
 * announced last, never by what an earlier connection agreed.
 */
class PrivateDataPerConnectionTest {

    private static final int GRANT = 5;
    /** SOURCE of this many octets: a Reply of 28 + 24 + 4 + 2000 octets, inline only above 1024. */
    private static final int RESULT = 2000;
    private final Rnic serverRnic = Rnic.builder().eventLoopThreads(1).build();
    private final Rnic clientRnic = Rnic.builder().eventLoopThreads(1).build();
    private RpcRdmaServer server;

    @BeforeEach
    void listen() throws Exception {
        RpcRdmaSettings settings = RpcRdmaSettings.builder().credits(GRANT).inlineSize(4096)
                .binding(new EchoBinding()).build();
        server = RpcRdmaServer.listen(serverRnic, new InetSocketAddress("127.0.0.1", 0),
                new RpcDispatcher().register(EchoProgram.create()), settings);
    }

    @AfterEach
    void close() {
        try {
            server.close();
        } finally {
            clientRnic.close();
            serverRnic.close();
        }
    }

    /** The answer to a SOURCE Call without chunks, on a new connection announcing {@code privateData}. */
    private byte[] sourceOnANewConnection(int xid, byte[] privateData) throws Exception {
        try (RawPeer peer = RawPeer.requester(clientRnic, server.localAddress(), privateData)) {
            peer.send(concat(fixed(xid, 1, 1, 0), words(0, 0, 0), echoCall(xid, EchoProgram.PROC_SOURCE, words(RESULT))));
            return peer.receive();
        }
    }

    @Test
    void eachConnectionIsServedWithTheValuesAnnouncedOnIt() throws Exception {
        byte[] big = RpcRdmaPrivateData.of(false, 4096, 4096).encode();
        // 4 KiB each way: the Reply fits inline.
        assertThat(sourceOnANewConnection(0x11, big)).hasSize(28 + 24 + 4 + RESULT)
                .startsWith(words(0x11, 1, GRANT, 0, 0, 0, 0, 0x11, 1, 0, 0, 0, 0, RESULT));
        // Reconnected without a block: 1 KiB each way, no Reply chunk offered, so ERR_CHUNK.
        assertThat(sourceOnANewConnection(0x12, new byte[0])).isEqualTo(words(0x12, 1, GRANT, 4, 2));
        // Reconnected announcing a 4 KiB receive size again: inline again.
        assertThat(sourceOnANewConnection(0x13, big)).hasSize(28 + 24 + 4 + RESULT);
    }
}
