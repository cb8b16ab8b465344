package org.iwarp4j.conformance.probe;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;

/**
 * An iwarp4j RNIC listening on loopback with the given MPA settings; every connection request
 * gets a queue pair of its own, as a server application would give it.
 */
final class OurListener implements AutoCloseable {

    static final EnumSet<Access> ALL = EnumSet.allOf(Access.class);

    final Rnic rnic;
    final Listener listener;

    OurListener(MpaSettings mpa) throws Exception {
        rnic = Rnic.builder().eventLoopThreads(1).build();
        ProtectionDomain pd = rnic.allocateProtectionDomain();
        CompletionQueue cq = rnic.createCompletionQueue(256);
        listener = rnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> request.accept(
                rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(mpa).build())));
    }

    InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    @Override
    public void close() {
        listener.close();
        rnic.close();
    }
}
