package org.iwarp4j.tools.pcap;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Sits at the head of a connection's pipeline until it becomes active; only then are its addresses
 * known, and with them whether the other end is already recorded. If not, puts a PcapWriteHandler
 * in its place, which sees the activation (and writes the SYN, SYN-ACK, ACK) before any handler
 * behind it can send: the MPA Request of an Initiator is sent on activation.
 */
final class ConnectionGate extends ChannelInboundHandlerAdapter {

    private final PcapRecording recording;

    ConnectionGate(PcapRecording recording) {
        this.recording = recording;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (recording.claim(ctx.channel())) {
            ctx.pipeline().addAfter(ctx.name(), null, recording.newWriter());
        }
        ctx.fireChannelActive();
        ctx.pipeline().remove(this);
    }
}
