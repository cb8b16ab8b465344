package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import org.iwarp4j.nfs.internal.FileHandles;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Commit3Res;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.nfs.v3.Write3Res;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;

/**
 * READ, WRITE, COMMIT (RFC 8881 §18.22, §18.32, §18.3) and SEEK (RFC 7862 §15.11) through the
 * NFSv3 server's data path (cached channels, the same write verifier). READ data and WRITE data
 * are the DDP-eligible items of RFC 8267 §6.1: READ data goes into the Write chunk the client
 * provided for that READ (the transport pairs the i-th DDP-eligible result with the i-th Write
 * chunk, §6.4.1), WRITE data may arrive in a Read chunk.
 */
final class DataOps4 {

    private final Nfs4Context ctx;
    private final OpenOps opens;

    DataOps4(Nfs4Context ctx, OpenOps opens) {
        this.ctx = ctx;
        this.opens = opens;
    }

    private FileHandles.Resolved regular(CompoundState st) {
        FileHandles.Resolved r = st.current();
        if (r.isDirectory()) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "a directory");
        }
        if (r.stat().type() == Ftype3.NF3LNK) {
            throw new Nfs4Exception(NFS4ERR_SYMLINK, "a symbolic link");
        }
        if (r.stat().type() != Ftype3.NF3REG) {
            throw new Nfs4Exception(NFS4ERR_WRONG_TYPE, "not a regular file");
        }
        return r;
    }

    /**
     * READ (RFC 8881 §18.22); in a session a count the reply limit cannot hold is shortened to
     * what it can (a short read, not an error: §2.10.6.1.3 leaves it to the server).
     */
    Result read(XdrDecoder in, CompoundState st) {
        Stateid4 id = Stateid4.decode(in);
        long offset = in.readHyper();
        long count = in.readUnsignedInt();
        // eof and the data's length word come first; the data shrinks to what the session's reply
        // limit leaves (a short read, RFC 8881 §18.22.3, as knfsd's nfsd4_encode_read does)
        long room = st.replyRoom() - 8;
        if (count > room) {
            count = Math.max(0, room & ~3L);
        }
        FileHandles.Resolved r = regular(st);
        opens.checkIo(st, st.resolveStateid(id), r, false);
        // the resolution just checked (PUTFH's, see CompoundState.current): not a third one
        Read3Res res = ctx.data3().read(r, offset, count, st.caller);
        if (!res.status().isOk()) {
            throw new Nfs4Exception(Nfs4Errors.of(res.status()), "READ");
        }
        ByteBuf data = res.data();
        boolean eof = res.eof();
        return Result.ok(out -> out.writeBoolean(eof).writeDdpEligibleOpaque(data, Integer.MAX_VALUE));
    }

    /** WRITE; the data is released whatever happens. */
    Result write(XdrDecoder in, CompoundState st) {
        Stateid4 id = Stateid4.decode(in);
        long offset = in.readHyper();
        int stable = in.readEnum();
        ByteBuf data = in.readDdpEligibleOpaque(ctx.base().limits().maxWrite());
        FileHandles.Resolved r;
        try {
            if (stable < UNSTABLE4 || stable > FILE_SYNC4) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "stable_how4 " + stable);
            }
            r = regular(st);
            opens.checkIo(st, st.resolveStateid(id), r, true);
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        int count = data.readableBytes();
        // the resolution just checked, as for READ
        Write3Res res = ctx.data3().write(r, new Write3Args(st.currentFh(), offset, count, StableHow.of(stable),
                data), st.caller);
        if (!res.status().isOk()) {
            throw new Nfs4Exception(Nfs4Errors.of(res.status()), "WRITE");
        }
        int committed = res.committed().value();
        long verf = res.verf();
        return Result.ok(out -> out.writeUnsignedInt(count).writeEnum(committed).writeHyper(verf));
    }

    Result commit(XdrDecoder in, CompoundState st) {
        long offset = in.readHyper();
        long count = in.readUnsignedInt();
        regular(st);
        Commit3Res res = ctx.data3().commit(new Commit3Args(st.currentFh(), offset, count), st.caller);
        if (!res.status().isOk()) {
            throw new Nfs4Exception(Nfs4Errors.of(res.status()), "COMMIT");
        }
        long verf = res.verf();
        return Result.ok(out -> out.writeHyper(verf));
    }

    /**
     * SEEK (RFC 7862 §15.11) without knowledge of holes (java.nio has no SEEK_DATA): the file is
     * one data segment followed by the implicit hole at its end. An offset at or beyond the end is
     * NFS4ERR_NXIO.
     */
    Result seek(XdrDecoder in, CompoundState st) {
        Stateid4 id = Stateid4.decode(in);
        long offset = in.readHyper();
        int what = in.readEnum();
        if (what != NFS4_CONTENT_DATA && what != NFS4_CONTENT_HOLE) {
            throw new Nfs4Exception(NFS4ERR_UNION_NOTSUPP, "data_content4 " + what);
        }
        FileHandles.Resolved r = regular(st);
        opens.checkIo(st, st.resolveStateid(id), r, false);
        long size = r.stat().size();
        if (offset < 0 || offset >= size) {
            throw new Nfs4Exception(NFS4ERR_NXIO, "offset " + offset + " at or beyond the end " + size);
        }
        long found = what == NFS4_CONTENT_DATA ? offset : size;
        boolean eof = what == NFS4_CONTENT_HOLE;
        return Result.ok(out -> out.writeBoolean(eof).writeHyper(found));
    }
}
