package org.iwarp4j.tools.bench.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.tools.bench.BenchSettings;
import org.iwarp4j.tools.bench.BenchTest;

/**
 * A server end and a client end of a bandwidth test over loopback TCP, one data queue pair each, for
 * the engines' tests. A Send server's receives are posted while its queue pair is IDLE ({@link
 * DataEnd#postReceives}, as PerftestServer does): they reach the engine when the connection comes
 * up, before the client's first Send can be read. {@link #connect} brings the connection up.
 */
class LoopbackDataEnds implements AutoCloseable {
    final BenchSettings settings;
    final Rnic serverRnic;
    final Rnic clientRnic;
    final DataEnd server;
    final DataEnd client;
    final Listener listener;
    final QueuePair serverQp;
    final QueuePair clientQp;

    LoopbackDataEnds(BenchSettings settings) throws Exception {
        this.settings = settings;
        serverRnic = settings.rnic(1, null);
        clientRnic = settings.rnic(1, null);
        server = new DataEnd(serverRnic, settings);
        client = new DataEnd(clientRnic, settings);
        serverQp = server.newQueuePair(serverRnic);
        if (settings.test() == BenchTest.SEND) {
            server.postReceives(serverQp, 0); // while IDLE, as PerftestServer does
        }
        server.add(serverQp);
        listener = serverRnic.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings.mpa(),
                request -> request.accept(serverQp));
        clientQp = client.newQueuePair(clientRnic);
        client.add(clientQp);
    }

    void connect() throws Exception {
        clientQp.connect(listener.localAddress()).get(30, TimeUnit.SECONDS);
        serverQp.established().get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        listener.close();
        client.close();
        server.close();
        clientRnic.close();
        serverRnic.close();
    }
}
