package org.iwarp4j.oncrpc;

import java.util.concurrent.CompletableFuture;

/** A client transport that hands calls straight to a dispatcher in the same JVM (tests only). */
final class DispatcherTransport implements RpcClientTransport {

    private final RpcDispatcher dispatcher;
    private volatile boolean closed;

    DispatcherTransport(RpcDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
        if (closed) {
            call.release();
            return CompletableFuture.failedFuture(new RpcTransportException("closed"));
        }
        return dispatcher.dispatch(call, RpcTransportInfo.of(name(), null, null));
    }

    @Override
    public String name() {
        return "in-process";
    }

    @Override
    public void close() {
        closed = true;
    }
}
