package org.iwarp4j.rpcrdma.internal.wire;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.ERR_CHUNK_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.ERR_VERS_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.FIXED_HEADER_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.MIN_HEADER_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.NOT_PRESENT;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRESENT;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.READ_SEGMENT_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.SEGMENT_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.VERSION;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.WORD;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.iwarp4j.ddp.DdpSegmenter;

/**
 * Decodes the transport header at the start of a received RDMA Send (RFC 8166 §4.1.2) and checks
 * it as §4.5 asks: a message that is too short is discarded before any parsing; an unsupported
 * version, an XDR error or chunk lists beyond {@link HeaderLimits} come back as a {@link
 * HeaderDecodeResult.Rejected} whose {@link HeaderProblem} says whether an RDMA_ERROR is owed. The
 * one message of another version that decodes is an RDMA_ERROR carrying ERR_VERS (§7).
 *
 * <p>Bounded: every count and every list entry is checked against the octets left in the message
 * and against the limits before anything is stored, so the decoder never allocates more than the
 * message itself could describe. It never throws for bad input. Stateless and thread-safe.
 *
 * <p>The buffer stays the caller's: on success its reader index is moved past the header (to the
 * Payload stream of an RDMA_MSG); on rejection it is left where it was.
 */
public final class RpcRdmaHeaderDecoder {

    private final HeaderLimits limits;

    public RpcRdmaHeaderDecoder(HeaderLimits limits) {
        this.limits = java.util.Objects.requireNonNull(limits);
    }

    public RpcRdmaHeaderDecoder() {
        this(HeaderLimits.DEFAULT);
    }

    public HeaderLimits limits() {
        return limits;
    }

    /** Decodes the header at {@code in}'s reader index; see the class description. */
    public HeaderDecodeResult decode(ByteBuf in) {
        int start = in.readerIndex();
        int length = in.readableBytes();
        if (length < FIXED_HEADER_LENGTH) {
            return new HeaderDecodeResult.Rejected(HeaderProblem.TOO_SHORT, 0, 0, 0,
                    length + " octets, not even the four fixed words");
        }
        int xid = in.getInt(start);
        int version = in.getInt(start + 4);
        int credits = in.getInt(start + 8);
        int proc = in.getInt(start + 12);
        Reader r = new Reader(in, start + FIXED_HEADER_LENGTH, start + length);
        try {
            RpcRdmaHeader header = decodeBody(r, length, xid, version, credits, proc);
            in.readerIndex(r.index);
            return new HeaderDecodeResult.Decoded(header);
        } catch (Failure f) {
            return new HeaderDecodeResult.Rejected(f.problem, xid, version, credits, f.getMessage());
        }
    }

    private RpcRdmaHeader decodeBody(Reader r, int length, int xid, int version, int credits, int proc) {
        RdmaProcedure procedure = RdmaProcedure.fromCode(proc);
        if (version != VERSION && procedure == RdmaProcedure.RDMA_ERROR && length >= ERR_VERS_LENGTH
                && r.buf.getInt(r.index) == RdmaErrorCode.ERR_VERS.code()) {
            // §7 fixes rdma_proc, the value of ERR_VERS and the rpc_rdma_errvers layout for every
            // version, so an ERR_VERS decodes whatever rdma_vers it carries; §4.5 has it echo the
            // failing Call's version, which is not 1 when that Call's header was garbled.
            return decodeError(r, length, xid, version, credits); // RPC-R-062
        }
        if (version != VERSION) {
            if (length < MIN_HEADER_LENGTH) {
                throw r.fail(HeaderProblem.TOO_SHORT, length + " octets with rdma_vers " + Integer.toUnsignedString(version));
            }
            if (procedure == RdmaProcedure.RDMA_ERROR) {
                // §7 fixes RDMA_ERROR's value for every version as well: whatever else it carries, it
                // is an RDMA_ERROR, which is never answered (RPC-R-044), not even with ERR_VERS.
                throw r.fail(HeaderProblem.RDMA_ERROR_OF_OTHER_VERSION, "rdma_vers " + Integer.toUnsignedString(version));
            }
            throw r.fail(HeaderProblem.VERSION_NOT_SUPPORTED, "rdma_vers " + Integer.toUnsignedString(version));
        }
        if (procedure == RdmaProcedure.RDMA_ERROR) {
            return decodeError(r, length, xid, version, credits);
        }
        if (procedure == RdmaProcedure.RDMA_DONE) {
            return new RpcRdmaHeader.RdmaDone(xid, version, credits);
        }
        if (length < MIN_HEADER_LENGTH) {
            throw r.fail(HeaderProblem.TOO_SHORT, length + " octets, less than the minimal header of " + MIN_HEADER_LENGTH);
        }
        if (procedure == null) {
            throw r.fail(HeaderProblem.XDR_ERROR, "unknown rdma_proc " + Integer.toUnsignedString(proc));
        }
        switch (procedure) {
            case RDMA_MSG: {
                ChunkLists chunks = decodeChunkLists(r);
                if (r.remaining() < WORD) {
                    throw r.fail(HeaderProblem.XDR_ERROR, "RDMA_MSG without a Payload stream");
                }
                int payloadXid = r.buf.getInt(r.index);
                if (payloadXid != xid) {
                    throw r.fail(HeaderProblem.XDR_ERROR, String.format("rdma_xid %08x but the RPC message has XID %08x",
                            xid, payloadXid));
                }
                return new RpcRdmaHeader.RdmaMsg(xid, version, credits, chunks);
            }
            case RDMA_NOMSG: {
                ChunkLists chunks = decodeChunkLists(r);
                if (chunks.isEmpty()) { // RPC-R-042: nothing would carry the Payload stream
                    throw r.fail(HeaderProblem.XDR_ERROR, "RDMA_NOMSG with no chunk to hold the Payload stream");
                }
                return new RpcRdmaHeader.RdmaNomsg(xid, version, credits, chunks);
            }
            case RDMA_MSGP: {
                long align = r.word("rdma_align");
                long threshold = r.word("rdma_thresh");
                return new RpcRdmaHeader.RdmaMsgp(xid, version, credits, align, threshold, decodeChunkLists(r));
            }
            default:
                throw new AssertionError(procedure);
        }
    }

    private static RpcRdmaHeader decodeError(Reader r, int length, int xid, int version, int credits) {
        if (length < ERR_CHUNK_LENGTH) {
            throw r.fail(HeaderProblem.UNDECODABLE_ERROR, "RDMA_ERROR of " + length + " octets has no rdma_err");
        }
        long code = r.word("rdma_err");
        RdmaErrorCode error = code > Integer.MAX_VALUE ? null : RdmaErrorCode.fromCode((int) code);
        if (error == null) { // RPC-R-063: a code we cannot read is dropped, never guessed at
            throw r.fail(HeaderProblem.UNDECODABLE_ERROR, "unknown rdma_err " + code);
        }
        if (error == RdmaErrorCode.ERR_CHUNK) {
            return RpcRdmaHeader.RdmaError.errChunk(xid, version, credits);
        }
        if (length < ERR_VERS_LENGTH) {
            throw r.fail(HeaderProblem.UNDECODABLE_ERROR, "ERR_VERS of " + length + " octets has no version range");
        }
        int low = (int) r.word("rdma_vers_low");
        int high = (int) r.word("rdma_vers_high");
        return new RpcRdmaHeader.RdmaError(xid, version, credits, RdmaErrorCode.ERR_VERS, low, high);
    }

    private ChunkLists decodeChunkLists(Reader r) {
        List<ReadSegment> readList = decodeReadList(r);
        List<WriteChunk> writeList = new ArrayList<>(0);
        while (r.present("Write list")) {
            if (writeList.size() >= limits.maxWriteChunks()) {
                throw r.fail(HeaderProblem.LIMIT_EXCEEDED, "more than " + limits.maxWriteChunks() + " Write chunks");
            }
            writeList.add(decodeWriteChunk(r, "Write chunk"));
        }
        Optional<WriteChunk> replyChunk = r.present("Reply chunk")
                ? Optional.of(decodeWriteChunk(r, "Reply chunk")) : Optional.empty();
        return new ChunkLists(readList, writeList, replyChunk);
    }

    private List<ReadSegment> decodeReadList(Reader r) {
        List<ReadSegment> readList = new ArrayList<>(0);
        Map<Long, Long> chunkLengths = null;
        while (r.present("Read list")) {
            if (readList.size() >= limits.maxReadSegments()) {
                throw r.fail(HeaderProblem.LIMIT_EXCEEDED, "more than " + limits.maxReadSegments() + " read segments");
            }
            r.need(READ_SEGMENT_LENGTH, "read segment");
            long position = r.word("position");
            if (position % WORD != 0) { // RPC-R-023: XDR items start on 4-octet boundaries only
                throw r.fail(HeaderProblem.XDR_ERROR, "read segment Position " + position + " is not a multiple of 4");
            }
            RdmaSegment segment = segment(r);
            if (chunkLengths == null) {
                chunkLengths = new HashMap<>();
            }
            long chunkLength = chunkLengths.merge(position, segment.length(), Long::sum);
            if (chunkLength > limits.maxChunkLength()) {
                throw r.fail(HeaderProblem.LIMIT_EXCEEDED, "Read chunk at Position " + position + " longer than "
                        + limits.maxChunkLength() + " octets");
            }
            readList.add(new ReadSegment(position, segment));
        }
        return readList;
    }

    private WriteChunk decodeWriteChunk(Reader r, String what) {
        long count = r.remaining() < WORD ? r.word(what + " segment count") : r.word(what);
        if (count * SEGMENT_LENGTH > r.remaining()) {
            throw r.fail(HeaderProblem.XDR_ERROR, what + " of " + count + " segments overruns the message ("
                    + r.remaining() + " octets left)");
        }
        if (count > limits.maxSegmentsPerChunk()) {
            throw r.fail(HeaderProblem.LIMIT_EXCEEDED, what + " of " + count + " segments, more than "
                    + limits.maxSegmentsPerChunk());
        }
        List<RdmaSegment> segments = new ArrayList<>((int) count);
        long total = 0;
        for (long i = 0; i < count; i++) {
            RdmaSegment s = segment(r);
            total += s.length();
            segments.add(s);
        }
        if (total > limits.maxChunkLength()) {
            throw r.fail(HeaderProblem.LIMIT_EXCEEDED, what + " of " + total + " octets, more than "
                    + limits.maxChunkLength());
        }
        return new WriteChunk(segments);
    }

    /**
     * One RDMA segment (RFC 8166 §4.1.2: handle, length, 64-bit offset). Its octets are numbered
     * from the offset up, and the whole range must be addressable: a segment whose offset + length
     * passes 2^64 can be neither read nor written (DDP would refuse the tagged message, RFC 5041
     * §7.1), so it is an XDR error of the header (ERR_CHUNK from a Responder, discarded by a
     * Requester, §4.5.2) rather than an RDMA operation that breaks the connection.
     */
    private static RdmaSegment segment(Reader r) {
        r.need(SEGMENT_LENGTH, "segment");
        int handle = r.buf.getInt(r.index);
        long length = r.buf.getUnsignedInt(r.index + 4);
        long offset = r.buf.getLong(r.index + 8);
        if (DdpSegmenter.wrapsTaggedOffset(offset, length)) {
            throw r.fail(HeaderProblem.XDR_ERROR, String.format("segment of %d octets at offset 0x%x wraps 2^64",
                    length, offset));
        }
        r.index += SEGMENT_LENGTH;
        return new RdmaSegment(handle, length, offset);
    }

    /** A read cursor over the message that fails with the problem and a description instead of reading past it. */
    private static final class Reader {
        final ByteBuf buf;
        final int end;
        int index;

        Reader(ByteBuf buf, int index, int end) {
            this.buf = buf;
            this.index = index;
            this.end = end;
        }

        int remaining() {
            return end - index;
        }

        void need(int octets, String what) {
            if (remaining() < octets) {
                throw fail(HeaderProblem.XDR_ERROR, what + " needs " + octets + " octets, " + remaining()
                        + " left: the list overruns the message");
            }
        }

        long word(String what) {
            need(WORD, what);
            long v = buf.getUnsignedInt(index);
            index += WORD;
            return v;
        }

        /** An XDR optional-data discriminator: 1 present, 0 absent, anything else an error. */
        boolean present(String list) {
            if (remaining() < WORD) {
                need(WORD, list + " discriminator"); // the name is built only for the error: once per list per Call
            }
            long d = buf.getUnsignedInt(index);
            index += WORD;
            if (d == PRESENT) {
                return true;
            }
            if (d == NOT_PRESENT) {
                return false;
            }
            throw fail(HeaderProblem.XDR_ERROR, list + " discriminator " + d + " is neither 0 nor 1");
        }

        Failure fail(HeaderProblem problem, String detail) {
            return new Failure(problem, detail);
        }
    }

    /** Unwinds the decoder to {@link #decode}; never escapes it. No stack trace: it is control flow. */
    private static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient HeaderProblem problem;

        Failure(HeaderProblem problem, String detail) {
            super(detail, null, false, false);
            this.problem = problem;
        }
    }
}
