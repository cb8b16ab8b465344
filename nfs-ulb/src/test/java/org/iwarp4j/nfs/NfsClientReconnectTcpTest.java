package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.WccRes3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our NFSv3 client and server over TCP when the connection is lost between a call and its reply:
 * the client connects again and sends the call again (same xid, same octets), and the server's
 * duplicate request cache answers with the first reply — a REMOVE the server ran once succeeds for
 * the application, where a second execution would have answered NFS3ERR_NOENT.
 */
class NfsClientReconnectTcpTest {

    private static final int NFSPROC3_REMOVE = 12;

    @TempDir
    Path dir;

    @Test
    void aRemoveWhoseReplyWasLostWithTheConnectionSucceedsOnceAfterTheReconnect() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).meterRegistry(meters).start();
             CuttingProxy proxy = new CuttingProxy(new InetSocketAddress("127.0.0.1", server.tcpPort()));
             NfsClient client = NfsClient.builder(proxy.address()).connect()) {
            Files.createFile(dir.resolve("victim"));
            proxy.cutAtNextReply();
            WccRes3 removed = client.remove(client.root(), "victim").get(20, TimeUnit.SECONDS);
            assertThat(removed.status()).isEqualTo(Nfs3Status.NFS3_OK);
            assertThat(dir.resolve("victim")).doesNotExist();

            List<byte[]> removes = proxy.calls(NFSPROC3_REMOVE);
            assertThat(removes).hasSize(2);
            assertThat(removes.get(1)).as("sent again as it was, xid and all").isEqualTo(removes.get(0));
            assertThat(proxy.connections()).as("MOUNT's, NFS's, and NFS's again").isEqualTo(3);
            assertThat(meters.get("iwarp.oncrpc.duplicates").tag("outcome", "replayed").counter().count())
                    .isEqualTo(1);
        }
    }

    /**
     * A record-marking proxy (RFC 5531 §11): one upstream connection per client connection,
     * records forwarded whole; at a signal it drops the next reply and closes that pair of
     * connections, as a network that fails between a server's reply and the client.
     */
    private static final class CuttingProxy implements AutoCloseable {
        private final ServerSocket listener;
        private final InetSocketAddress server;
        private final List<Socket> sockets = new ArrayList<>();
        private final List<byte[]> calls = new ArrayList<>();
        private int connections;
        private boolean cut;

        CuttingProxy(InetSocketAddress server) throws IOException {
            this.listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
            this.server = server;
            daemon(this::accept);
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", listener.getLocalPort());
        }

        synchronized void cutAtNextReply() {
            cut = true;
        }

        synchronized int connections() {
            return connections;
        }

        /** The NFS calls of procedure {@code procedure} that came through, in order. */
        synchronized List<byte[]> calls(int procedure) {
            return calls.stream().filter(c -> ByteBuffer.wrap(c).getInt(12) == 100003
                    && ByteBuffer.wrap(c).getInt(20) == procedure).toList();
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    Socket upstream = new Socket(server.getAddress(), server.getPort());
                    synchronized (this) {
                        connections++;
                        sockets.add(client);
                        sockets.add(upstream);
                    }
                    daemon(() -> pump(client, upstream, true));
                    daemon(() -> pump(upstream, client, false));
                }
            } catch (IOException closed) {
                // the proxy is closed
            }
        }

        private void pump(Socket from, Socket to, boolean calling) {
            try {
                DataInputStream in = new DataInputStream(from.getInputStream());
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(to.getOutputStream()));
                while (true) {
                    int mark = in.readInt();
                    byte[] record = new byte[mark & 0x7fff_ffff];
                    in.readFully(record);
                    synchronized (this) {
                        if (calling) {
                            calls.add(record);
                        } else if (cut) {
                            cut = false;
                            from.close(); // the reply is lost with the connection
                            to.close();
                            return;
                        }
                    }
                    out.writeInt(0x8000_0000 | record.length); // every record here is one fragment
                    out.write(record);
                    out.flush();
                }
            } catch (IOException closed) {
                // one side closed
            }
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r, "cutting-proxy");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public synchronized void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
