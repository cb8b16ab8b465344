package org.iwarp4j.rdmap.internal.qp;

import java.util.List;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;

/**
 * A stand-in engine for {@link WorkQueue} tests: it records what it is given, in order, in {@link
 * #seen}: "send:ID" and "cmd:ID" (a receive's command), "close", "abort", "drained" and "failed:ID:
 * message" ({@link #commandFailed}). Tests override what they need to behave otherwise.
 */
class RecordingHandler implements WorkCommand.Handler {

    final List<String> seen;

    RecordingHandler(List<String> seen) {
        this.seen = seen;
    }

    @Override
    public void postSend(SendWorkRequest request) {
        seen.add("send:" + request.id());
    }

    @Override
    public void postReceive(ReceiveWorkRequest request) {
        seen.add("cmd:" + request.id());
    }

    @Override
    public void closeGracefully() {
        seen.add("close");
    }

    @Override
    public void abort() {
        seen.add("abort");
    }

    @Override
    public void drained() {
        seen.add("drained");
    }

    @Override
    public void commandFailed(WorkCommand command, Throwable cause) {
        String what = command instanceof WorkCommand.PostReceive r ? String.valueOf(r.request().id())
                : command.toString();
        seen.add("failed:" + what + ": " + cause.getMessage());
    }
}
