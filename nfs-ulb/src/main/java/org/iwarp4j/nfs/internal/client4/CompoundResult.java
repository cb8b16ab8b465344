package org.iwarp4j.nfs.internal.client4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * A decoded COMPOUND4res (RFC 8881 §16.2.2) of the operations the client sends: the COMPOUND's
 * status and one {@link Result} per operation the server evaluated (it stops at the first that
 * fails, RFC 8881 §15.2). A READ result holds its data (from the Write chunk over RPC-over-RDMA);
 * {@link #release()} drops what is left.
 *
 * <p>The COMPOUND's status is the status of the last operation evaluated, and with NFS4_OK every
 * operation was evaluated and succeeded (RFC 8881 §16.2.3). A reply that says NFS4_OK otherwise is
 * not taken at its word, so that an NFS4_OK {@link #status} always means every result is there
 * with its body: one whose last result failed has that result's status; one with fewer results
 * than operations sent has NFS4ERR_IO, and {@link #check()} names what the server did. A result
 * for OP_ILLEGAL that claims NFS4_OK is undecodable.
 */
final class CompoundResult {

    /** One nfs_resop4: opcode, status, and the decoded body of a successful result (or null). */
    record Result(int opcode, int status, Object body) {
    }

    record Sequence(byte[] sessionId, int sequenceId, int slot, int highestSlot, int targetHighestSlot, int flags) {
    }

    record ExchangeId(long clientId, int sequenceId, int flags) {
    }

    record CreateSession(byte[] sessionId, int sequence, int flags, ChannelAttrs4 fore, ChannelAttrs4 back) {
    }

    record Open(Stateid4 stateid, int resultFlags) {
    }

    record Read(boolean eof, ByteBuf data) {
    }

    record Write(long count, int committed, long verifier) {
    }

    record Readdir(long verifier, List<DirEntry4> entries, boolean eof) {
    }

    /** The longest symbolic link target accepted (Linux's PATH_MAX). */
    static final int READLINK_LIMIT = 4096;

    /** The COMPOUND's status, made consistent with the results (see above). */
    final int status;
    final List<Result> results;
    final List<Op> sent;
    /** What was wrong with a reply that said NFS4_OK without a result for every operation, or null. */
    private final String missing;

    private CompoundResult(int status, List<Result> results, List<Op> sent) {
        this.results = results;
        this.sent = sent;
        int last = results.isEmpty() ? NFS4_OK : results.get(results.size() - 1).status();
        if (status == NFS4_OK && last != NFS4_OK) {
            this.status = last;
            this.missing = null;
        } else if (status == NFS4_OK && results.size() < sent.size()) {
            this.status = NFS4ERR_IO;
            this.missing = "the server answered NFS4_OK with " + results.size() + " results for " + sent.size()
                    + " operations";
        } else {
            this.status = status;
            this.missing = null;
        }
    }

    /** Decodes COMPOUND4res; {@code maxRead} bounds READ data. */
    static CompoundResult decode(XdrDecoder in, List<Op> sent, int maxRead) {
        int status = in.readInt();
        in.readOpaque(NFS4_OPAQUE_LIMIT); // tag
        long count = in.readUnsignedInt();
        if (count > sent.size()) {
            throw new XdrException("COMPOUND4res with " + count + " results for " + sent.size() + " operations");
        }
        List<Result> results = new ArrayList<>((int) count);
        try {
            for (int i = 0; i < count; i++) {
                int opcode = in.readInt();
                if (opcode != sent.get(i).opcode() && opcode != OP_ILLEGAL) {
                    throw new XdrException("result " + i + " is for operation " + opcode + ", not "
                            + sent.get(i).opcode());
                }
                int opStatus = in.readInt();
                if (opcode == OP_ILLEGAL && opStatus == NFS4_OK) {
                    throw new XdrException("result " + i + " is OP_ILLEGAL with NFS4_OK");
                }
                Object body = opStatus == NFS4_OK ? body(opcode, in, maxRead) : null;
                results.add(new Result(opcode, opStatus, body));
                if (opStatus != NFS4_OK) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            results.forEach(r -> ReferenceCountUtil.release(r.body() instanceof Read read ? read.data() : null));
            throw e;
        }
        return new CompoundResult(status, List.copyOf(results), sent);
    }

    private static Object body(int opcode, XdrDecoder in, int maxRead) {
        switch (opcode) {
            case OP_SEQUENCE:
                return new Sequence(in.readFixedOpaque(NFS4_SESSIONID_SIZE), in.readInt(), in.readInt(), in.readInt(),
                        in.readInt(), in.readInt());
            case OP_EXCHANGE_ID: {
                long clientId = in.readHyper();
                int seq = in.readInt();
                int flags = in.readInt();
                int protect = in.readEnum();
                if (protect != SP4_NONE) {
                    throw new XdrException("EXCHANGE_ID state protection " + protect + ", SP4_NONE was asked for");
                }
                in.readHyper();
                in.readOpaque(NFS4_OPAQUE_LIMIT); // server_owner4
                in.readOpaque(NFS4_OPAQUE_LIMIT); // server_scope
                long impl = in.readUnsignedInt();
                if (impl > 1) {
                    throw new XdrException("eir_server_impl_id<1> with " + impl + " elements");
                }
                if (impl == 1) {
                    in.readOpaque(NFS4_OPAQUE_LIMIT);
                    in.readOpaque(NFS4_OPAQUE_LIMIT);
                    in.skip(12);
                }
                return new ExchangeId(clientId, seq, flags);
            }
            case OP_CREATE_SESSION:
                return new CreateSession(in.readFixedOpaque(NFS4_SESSIONID_SIZE), in.readInt(), in.readInt(),
                        ChannelAttrs4.decode(in), ChannelAttrs4.decode(in));
            case OP_GETFH:
                return in.readOpaque(NFS4_FHSIZE);
            case OP_GETATTR:
                return FileAttributes4.decode(in);
            case OP_OPEN: {
                Stateid4 stateid = Stateid4.decode(in);
                in.skip(20); // change_info4
                int rflags = in.readInt();
                Bitmap4.decode(in);
                skipDelegation(in);
                return new Open(stateid, rflags);
            }
            case OP_CLOSE:
                return Stateid4.decode(in);
            case OP_READ: {
                boolean eof = in.readBoolean();
                return new Read(eof, in.readDdpEligibleOpaque(maxRead));
            }
            case OP_WRITE:
                return new Write(in.readUnsignedInt(), in.readEnum(), in.readHyper());
            case OP_COMMIT:
                return in.readHyper();
            case OP_READLINK:
                return in.readString(READLINK_LIMIT); // linktext4 (RFC 8881 §18.24.2)
            case OP_REMOVE:
                in.skip(20);
                return null;
            case OP_READDIR: {
                long verifier = in.readHyper();
                List<DirEntry4> entries = new ArrayList<>();
                while (in.readBoolean()) {
                    long cookie = in.readHyper();
                    String name = in.readString(NFS4_OPAQUE_LIMIT);
                    entries.add(new DirEntry4(cookie, name, FileAttributes4.decode(in)));
                }
                return new Readdir(verifier, List.copyOf(entries), in.readBoolean());
            }
            default:
                return null; // PUTFH, PUTROOTFH, LOOKUP, RECLAIM_COMPLETE, DESTROY_*: no body
        }
    }

    /** open_delegation4 (RFC 8881 §18.16.2): the client asks for none, but a server may still grant one. */
    private static void skipDelegation(XdrDecoder in) {
        int type = in.readEnum();
        switch (type) {
            case OPEN_DELEGATE_NONE -> { }
            case 1, 2 -> { // OPEN_DELEGATE_READ, OPEN_DELEGATE_WRITE
                Stateid4.decode(in);
                in.readBoolean();
                if (type == 2) {
                    int limitBy = in.readEnum();
                    in.skip(limitBy == 1 ? 8 : 8); // NFS_LIMIT_SIZE: hyper; NFS_LIMIT_BLOCKS: two uint32
                }
                in.skip(12); // nfsace4 type, flag, access_mask
                in.readOpaque(NFS4_OPAQUE_LIMIT);
            }
            case OPEN_DELEGATE_NONE_EXT -> {
                int why = in.readEnum();
                if (why == WND4_CONTENTION || why == 2) { // WND4_RESOURCE
                    in.readBoolean();
                }
            }
            default -> throw new XdrException("open_delegation_type4 " + type);
        }
    }

    /** The body of the result of {@code opcode}, checking that it succeeded. */
    @SuppressWarnings("unchecked")
    <T> T body(int opcode) {
        for (Result r : results) {
            if (r.opcode() == opcode) {
                return (T) r.body();
            }
        }
        throw new IllegalStateException("no result for operation " + opcode);
    }

    /** The bodies of every result of {@code opcode}, in order. */
    @SuppressWarnings("unchecked")
    <T> List<T> bodies(int opcode) {
        List<T> out = new ArrayList<>();
        for (Result r : results) {
            if (r.opcode() == opcode) {
                out.add((T) r.body());
            }
        }
        return out;
    }

    /** The failing operation's status (the COMPOUND's if no result failed), or NFS4_OK. */
    int failedStatus() {
        if (status == NFS4_OK) {
            return NFS4_OK;
        }
        int last = results.isEmpty() ? NFS4_OK : results.get(results.size() - 1).status();
        return last != NFS4_OK ? last : status;
    }

    /** Throws {@link Nfs4StatusException} naming the failing operation if the COMPOUND failed; releases first. */
    CompoundResult check() {
        if (status != NFS4_OK) {
            release();
            throw new Nfs4StatusException(failedStatus(), failed());
        }
        return this;
    }

    /** What failed: the operation whose result failed, else the COMPOUND (and why, if results are missing). */
    private String failed() {
        if (missing != null) {
            return "COMPOUND (" + missing + ")";
        }
        boolean lastFailed = !results.isEmpty() && results.get(results.size() - 1).status() != NFS4_OK;
        return lastFailed ? sent.get(results.size() - 1).what() : "COMPOUND";
    }

    /** Releases READ data not taken. */
    void release() {
        for (Result r : results) {
            if (r.body() instanceof Read read) {
                ReferenceCountUtil.release(read.data());
            }
        }
    }
}
