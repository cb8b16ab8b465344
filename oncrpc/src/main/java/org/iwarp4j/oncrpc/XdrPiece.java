package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * One contiguous part of an {@link XdrMessage}.
 *
 * <p>An inline piece ({@code ddpEligible == false}) is a run of XDR octets exactly as they
 * appear in the stream, 4-octet aligned or not; the pieces after it continue the stream.
 *
 * <p>A DDP-eligible piece (RFC 8166 §3.4.2, chosen by the Upper-Layer Binding, e.g. NFS WRITE
 * data in a call or READ data in a reply) is the <em>body</em> of exactly one variable-length
 * opaque item: only its data octets. Its 4-octet length word is the last word of the inline
 * piece before it (the count stays in the Payload stream, RFC 8166 §3.4.4.1), and its XDR
 * roundup padding is <em>implicit</em>: the XDR stream continues with
 * {@link XdrMessage#padding(int) padding(data.readableBytes())} zero octets that belong to no
 * piece. This is the form an RPC-over-RDMA transport needs: reducing the item means dropping
 * the piece (its padding goes with it, RFC 8166 §3.4.4.4), the chunk carries the data without
 * padding (RFC 8166 §3.4.5.2, §3.4.6.2), and the Position of a Read chunk is
 * {@link XdrMessage#position(int)}.
 *
 * <p>In a Call an RPC-over-RDMA Responder received, the DDP-eligible pieces are the data it placed
 * from Read chunks; {@link XdrDecoder#XdrDecoder(XdrMessage, io.netty.buffer.ByteBuf)} lets only a
 * DDP-eligible item take them (RFC 8166 §6.1, RPC-R-073).
 *
 * @param data the octets, between reader and writer index; owned by the message that holds
 *     this piece and released with it
 * @param ddpEligible whether a transport may move {@code data} into a chunk
 */
public record XdrPiece(ByteBuf data, boolean ddpEligible) {

    public XdrPiece {
        Objects.requireNonNull(data, "data");
    }

    /** A run of XDR octets that stays in the stream. */
    public static XdrPiece inline(ByteBuf data) {
        return new XdrPiece(data, false);
    }

    /** The data octets of one opaque item that a transport may move into a chunk. */
    public static XdrPiece ddpEligible(ByteBuf data) {
        return new XdrPiece(data, true);
    }

    /** Octets this piece occupies in the XDR stream: its data plus, if DDP-eligible, the implicit padding. */
    public int streamLength() {
        int length = data.readableBytes();
        return ddpEligible ? length + XdrMessage.padding(length) : length;
    }
}
