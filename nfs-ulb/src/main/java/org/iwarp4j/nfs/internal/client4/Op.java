package org.iwarp4j.nfs.internal.client4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * One operation of a COMPOUND the client sends: its opcode, a short description for error
 * messages, and its nfs_argop4 body (RFC 8881 §16.2.1, §18). The encoders write exactly what
 * {@link RequesterBinding} walks; a WRITE's data is the only DDP-eligible item the client sends
 * (RFC 8267 §6.1, ULB-R-012), so over RPC-over-RDMA it travels in a Read chunk whose Position is
 * that of the data item (ULB-R-016).
 */
record Op(int opcode, String what, Consumer<XdrEncoder> args, ByteBuf payload) {

    Op(int opcode, String what, Consumer<XdrEncoder> args) {
        this(opcode, what, args, null);
    }

    /** Writes nfs_argop4; a payload's reference goes to {@code out}. */
    void encode(XdrEncoder out) {
        out.writeInt(opcode);
        args.accept(out);
    }

    /** Drops the payload of an operation that was never encoded. */
    void discard() {
        if (payload != null) {
            payload.release();
        }
    }

    private static Op of(int opcode, String what) {
        return new Op(opcode, what, out -> { });
    }

    /** SEQUENCE4args (RFC 8881 §18.46.1). */
    static Op sequence(byte[] sessionId, int sequenceId, int slot, int highestSlot, boolean cacheThis) {
        return new Op(OP_SEQUENCE, "SEQUENCE", out -> out.writeFixedOpaque(sessionId).writeInt(sequenceId)
                .writeInt(slot).writeInt(highestSlot).writeBoolean(cacheThis));
    }

    /**
     * EXCHANGE_ID4args (RFC 8881 §18.35.1): the verifier of this client instance, its owner id,
     * no flags (no pNFS, no migration), SP4_NONE, and no implementation id.
     */
    static Op exchangeId(long verifier, byte[] ownerId) {
        return new Op(OP_EXCHANGE_ID, "EXCHANGE_ID", out -> out.writeHyper(verifier)
                .writeOpaque(ownerId, NFS4_OPAQUE_LIMIT).writeInt(0).writeEnum(SP4_NONE).writeUnsignedInt(0));
    }

    /**
     * CREATE_SESSION4args (RFC 8881 §18.36.1) without CREATE_SESSION4_FLAG_CONN_BACK_CHAN: the
     * client declines the back channel (it asks for no delegations, so it needs no callbacks); the
     * back channel attributes are still sent, minimal but above what servers refuse as too small,
     * with the callback program and AUTH_NONE. Not offering the back channel is what RFC 8267
     * §6.5.2 leaves a client that does not answer callbacks (ULB-R-027).
     */
    static Op createSession(long clientId, int sequence, ChannelAttrs4 fore, ChannelAttrs4 back) {
        return new Op(OP_CREATE_SESSION, "CREATE_SESSION", out -> {
            out.writeHyper(clientId).writeInt(sequence).writeInt(0);
            fore.encode(out);
            back.encode(out);
            out.writeInt(0x40000000).writeUnsignedInt(1).writeEnum(0); // cb_program, sec_parms: AUTH_NONE
        });
    }

    static Op reclaimComplete() {
        return new Op(OP_RECLAIM_COMPLETE, "RECLAIM_COMPLETE", out -> out.writeBoolean(false));
    }

    static Op destroySession(byte[] sessionId) {
        return new Op(OP_DESTROY_SESSION, "DESTROY_SESSION", out -> out.writeFixedOpaque(sessionId));
    }

    static Op destroyClientId(long clientId) {
        return new Op(OP_DESTROY_CLIENTID, "DESTROY_CLIENTID", out -> out.writeHyper(clientId));
    }

    static Op putrootfh() {
        return of(OP_PUTROOTFH, "PUTROOTFH");
    }

    static Op putfh(byte[] fh) {
        return new Op(OP_PUTFH, "PUTFH", out -> out.writeOpaque(fh, NFS4_FHSIZE));
    }

    static Op getfh() {
        return of(OP_GETFH, "GETFH");
    }

    static Op lookup(String name) {
        return new Op(OP_LOOKUP, "LOOKUP " + name, out -> out.writeString(name, NFS4_OPAQUE_LIMIT));
    }

    static Op readlink() {
        return of(OP_READLINK, "READLINK");
    }

    static Op getattr(Bitmap4 request) {
        return new Op(OP_GETATTR, "GETATTR", request::encode);
    }

    static Op remove(String name) {
        return new Op(OP_REMOVE, "REMOVE " + name, out -> out.writeString(name, NFS4_OPAQUE_LIMIT));
    }

    /**
     * OPEN4args (RFC 8881 §18.16.1), CLAIM_NULL by name in the current directory, deny none, no
     * delegation wanted; with {@code create} UNCHECKED4 with size 0 (truncating a file that exists)
     * and mode 0644.
     */
    static Op open(long clientId, String owner, String name, int access, boolean create) {
        return new Op(OP_OPEN, "OPEN " + name, out -> {
            out.writeInt(0).writeInt(access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG).writeInt(OPEN4_SHARE_DENY_NONE)
                    .writeHyper(clientId).writeOpaque(owner.getBytes(StandardCharsets.UTF_8), NFS4_OPAQUE_LIMIT);
            if (create) {
                out.writeEnum(OPEN4_CREATE).writeEnum(UNCHECKED4);
                FileAttributes4.encodeSizeAndMode(out, 0, 0644);
            } else {
                out.writeEnum(OPEN4_NOCREATE);
            }
            out.writeEnum(CLAIM_NULL).writeString(name, NFS4_OPAQUE_LIMIT);
        });
    }

    /**
     * OPEN4args reclaiming an open after a server restart (RFC 8881 §18.16.1, §9.11): the open
     * owner's seqid 0, the access it had, no deny, OPEN4_NOCREATE, CLAIM_PREVIOUS of the current
     * file handle with OPEN_DELEGATE_NONE (the client held no delegation).
     */
    static Op reclaimOpen(long clientId, String owner, int access) {
        return new Op(OP_OPEN, "OPEN reclaim", out -> {
            out.writeInt(0).writeInt(access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG).writeInt(OPEN4_SHARE_DENY_NONE)
                    .writeHyper(clientId).writeOpaque(owner.getBytes(StandardCharsets.UTF_8), NFS4_OPAQUE_LIMIT);
            out.writeEnum(OPEN4_NOCREATE).writeEnum(CLAIM_PREVIOUS).writeEnum(OPEN_DELEGATE_NONE);
        });
    }

    static Op close(Stateid4 stateid) {
        return new Op(OP_CLOSE, "CLOSE", out -> {
            out.writeInt(0);
            stateid.encode(out);
        });
    }

    static Op read(Stateid4 stateid, long offset, int count) {
        return new Op(OP_READ, "READ at " + offset, out -> {
            stateid.encode(out);
            out.writeHyper(offset).writeUnsignedInt(count);
        });
    }

    /** WRITE4args; takes over the reference to {@code data}, which is DDP-eligible. */
    static Op write(Stateid4 stateid, long offset, int stable, ByteBuf data) {
        return new Op(OP_WRITE, "WRITE at " + offset, out -> {
            stateid.encode(out);
            out.writeHyper(offset).writeEnum(stable);
            out.writeDdpEligibleOpaque(data, Integer.MAX_VALUE);
        }, data);
    }

    static Op commit(long offset, int count) {
        return new Op(OP_COMMIT, "COMMIT", out -> out.writeHyper(offset).writeUnsignedInt(count));
    }

    static Op readdir(long cookie, long verifier, int dircount, int maxcount, Bitmap4 request) {
        return new Op(OP_READDIR, "READDIR", out -> {
            out.writeHyper(cookie).writeHyper(verifier).writeUnsignedInt(dircount).writeUnsignedInt(maxcount);
            request.encode(out);
        });
    }
}
