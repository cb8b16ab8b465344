package org.iwarp4j.conformance.decode.internal;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.nfs.binding.Nfs4Binding;
import org.iwarp4j.nfs.binding.Nfs4CallbackBinding;
import org.iwarp4j.nfs.binding.Nfs4OperationBinding;

/**
 * Steps through an NFSv4 COMPOUND (RFC 7530 §16.2, RFC 8881 §16.2, RFC 7862) operation by
 * operation, on the wire as RPC-over-RDMA carries it: the arguments of every operation of a Call,
 * the status and result of every operation of a Reply. The decoder keeps only what it needs — the
 * opcodes, the statuses, where the DDP-eligible items stand (RFC 8267 §6.1: WRITE data, CREATE's
 * NF4LNK linkdata, READ data, READLINK linkdata) — and skips everything else by its XDR layout,
 * so one unknown opcode ends the walk ({@link Call#complete()} false) rather than misreading the rest.
 *
 * <p>Reduced items (RFC 8166 §3.4.4): an eligible argument whose Position matches a Read chunk
 * is not in the Payload stream (its length word is, RPC-R-017; its padding is not, RPC-R-021), so
 * the walk keeps the Position in the unreduced stream beside the offset in the received one. A
 * READ or READLINK result is taken as moved out when the Write chunk paired with it (RFC 8267
 * §6.4.1, ULB-R-018) comes back with octets in it.
 */
final class Nfs4Compound {

    private static final Map<Integer, String> STATUS_NAMES = statusNames();

    private Nfs4Compound() {
    }

    /**
     * The arguments of a COMPOUND Call.
     *
     * @param minor the minor version
     * @param count the operation count the Call states
     * @param opcodes the operations walked, in order (all of them when complete)
     * @param complete whether every operation's arguments were stepped over
     * @param eligiblePositions the Positions (unreduced Payload stream) of the eligible arguments met
     * @param reducedPositions those of them that a Read chunk carried
     */
    record Call(int minor, int count, List<Integer> opcodes, boolean complete, Set<Long> eligiblePositions,
                Set<Long> reducedPositions, boolean callback) {

        Call(int minor, int count, List<Integer> opcodes, boolean complete, Set<Long> eligiblePositions,
             Set<Long> reducedPositions) {
            this(minor, count, opcodes, complete, eligiblePositions, reducedPositions, false);
        }

        /**
         * The READ-type operations (§6.4.1: those with an eligible result), in order; none in a
         * CB_COMPOUND, whose operations have no DDP-eligible item (RFC 8267 §6.5).
         */
        int readOperations() {
            return callback ? 0 : (int) opcodes.stream().filter(Nfs4Compound::isReadOperation).count();
        }

        String name(int opcode) {
            return callback ? callbackName(opcode) : Nfs4Compound.name(opcode);
        }
    }

    /** One operation's result: opcode, status, and for READ and READLINK the eligible item's length. */
    record OpResult(int opcode, int status, long itemLength, boolean itemInChunk) {
    }

    /**
     * The results of a COMPOUND Reply.
     *
     * @param status the COMPOUND's status
     * @param results the operations walked, in order
     * @param complete whether every result in the array was stepped over
     */
    record Reply(int status, List<OpResult> results, boolean complete) {
    }

    static boolean isReadOperation(int opcode) {
        return Nfs4Binding.operation(opcode).map(Nfs4OperationBinding::isReadOperation).orElse(false);
    }

    /**
     * The callback program: the client picks its number in CREATE_SESSION or BACKCHANNEL_CTL
     * (RFC 8881 §18.36, §18.33) or SETCLIENTID (RFC 7530 §16.33), by convention from the
     * transient range 0x40000000-0x5fffffff of RFC 5531 §8.3; Linux uses 0x40000000.
     */
    static boolean isCallbackProgram(int program) {
        return program >= 0x40000000 && program <= 0x5fffffff;
    }

    /** A callback operation's name (RFC 8881 §20, RFC 7862 §16). */
    static String callbackName(int opcode) {
        return Nfs4CallbackBinding.OPERATIONS.stream().filter(o -> o.opcode() == opcode).findFirst()
                .map(Nfs4OperationBinding::name).orElse("cb op " + opcode);
    }

    static String name(int opcode) {
        return Nfs4Binding.operation(opcode).map(Nfs4OperationBinding::name).orElse("op " + opcode);
    }

    static String status(int status) {
        return status == NFS4_OK ? "NFS4_OK" : STATUS_NAMES.getOrDefault(status, "status " + status);
    }

    private static Map<Integer, String> statusNames() {
        Map<Integer, String> m = new HashMap<>();
        for (Field f : org.iwarp4j.nfs.v4.Nfs4Constants.class.getFields()) {
            if (f.getName().startsWith("NFS4ERR_") && Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                try {
                    m.putIfAbsent(f.getInt(null), f.getName());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return Collections.unmodifiableMap(m);
    }

    /** The walk stopped: an opcode without a known layout or octets missing. */
    private static final class Stop extends RuntimeException {
        Stop(String why) {
            super(why, null, false, false);
        }
    }

    /** An XDR cursor that also knows the Position in the unreduced Payload stream. */
    private static final class Xdr {
        final ByteBuf b;
        final int messageStart;
        final Set<Long> readChunks;
        long removed;

        Xdr(ByteBuf b, int messageStart, Set<Long> readChunks) {
            this.b = b;
            this.messageStart = messageStart;
            this.readChunks = readChunks;
        }

        int u32() {
            if (b.readableBytes() < 4) {
                throw new Stop("message ends");
            }
            return b.readInt();
        }

        boolean bool() {
            return u32() != 0;
        }

        void skip(long n) {
            if (n < 0 || b.readableBytes() < n) {
                throw new Stop("message ends");
            }
            b.skipBytes((int) n);
        }

        long position() {
            return b.readerIndex() - messageStart + removed;
        }

        /**
         * A variable-length opaque. One that a Read chunk carried although it is not eligible is
         * stepped over all the same (the chunk's Position says where it was), so the walk goes on
         * and the Call's check can name the chunk.
         */
        void opaque() {
            long length = Integer.toUnsignedLong(u32());
            if (readChunks.contains(position())) {
                removed += pad(length);
            } else {
                skip(pad(length));
            }
        }

        void opaques() {
            for (long n = count(); n > 0; n--) {
                opaque();
            }
        }

        long count() {
            long n = Integer.toUnsignedLong(u32());
            if (n > b.readableBytes()) { // every element takes at least one octet
                throw new Stop("count " + n);
            }
            return n;
        }

        void words(long fixedOctetsEach) {
            skip(count() * fixedOctetsEach);
        }

        void bitmap() {
            words(4);
        }

        void fattr() {
            bitmap();
            opaque();
        }

        void stateid() {
            skip(16);
        }
    }

    /**
     * Walks CB_COMPOUND4args (RFC 8881 §20.2): tag, minor version, callback_ident, operations.
     *
     * @param args the Call's arguments (not consumed)
     */
    static Call callbackCall(ByteBuf args) {
        Xdr x = new Xdr(args.duplicate(), args.readerIndex(), Set.of());
        x.opaque(); // tag
        int minor = x.u32();
        x.skip(4); // callback_ident
        int count = x.u32();
        List<Integer> ops = new ArrayList<>();
        boolean complete = true;
        try {
            for (int i = 0; i < count; i++) {
                int opcode = x.u32();
                ops.add(opcode);
                callbackArguments(x, opcode);
            }
        } catch (Stop | IndexOutOfBoundsException e) {
            complete = false;
        }
        return new Call(minor, count, List.copyOf(ops), complete, Set.of(), Set.of(), true);
    }

    private static void callbackArguments(Xdr x, int op) {
        switch (op) {
            case 3 -> { // CB_GETATTR: fh, attribute bitmap
                x.opaque();
                x.bitmap();
            }
            case 4 -> { // CB_RECALL: stateid, truncate, fh
                x.skip(16 + 4);
                x.opaque();
            }
            case 5 -> { // CB_LAYOUTRECALL: type, iomode, changed, layoutrecall4
                x.skip(12);
                int recall = x.u32();
                if (recall == 1) { // LAYOUTRECALL4_FILE: fh, offset, length, stateid
                    x.opaque();
                    x.skip(8 + 8 + 16);
                } else if (recall == 2) { // LAYOUTRECALL4_FSID
                    x.skip(16);
                } else if (recall != 3) {
                    throw new Stop("layoutrecall type " + recall);
                }
            }
            case 6 -> { // CB_NOTIFY: stateid, fh, notify4<>
                x.skip(16);
                x.opaque();
                notifications(x);
            }
            case 8, 9 -> { // CB_RECALL_ANY, CB_RECALLABLE_OBJ_AVAIL: objects to keep, type mask
                x.skip(4);
                x.bitmap();
            }
            case 10 -> x.skip(4); // CB_RECALL_SLOT: target highest slot
            case 11 -> { // CB_SEQUENCE: session, sequence, slot, highest slot, cachethis, referring calls
                x.skip(16 + 4 * 4);
                for (long n = x.count(); n > 0; n--) {
                    x.skip(16);
                    x.words(8);
                }
            }
            case 12 -> x.skip(8); // CB_WANTS_CANCELLED: two booleans
            case 13 -> { // CB_NOTIFY_LOCK: fh, lock owner (clientid, owner)
                x.opaque();
                x.skip(8);
                x.opaque();
            }
            case 14 -> notifications(x); // CB_NOTIFY_DEVICEID
            case 15 -> { // CB_OFFLOAD (RFC 7862 §16.1): fh, stateid, offload_info4
                x.opaque();
                x.skip(16);
                if (x.u32() == NFS4_OK) {
                    writeResponse(x);
                } else {
                    x.skip(8);
                }
            }
            default -> throw new Stop("callback opcode " + op);
        }
    }

    /** notify4&lt;&gt;: each a bitmap and an opaque list of values. */
    private static void notifications(Xdr x) {
        for (long n = x.count(); n > 0; n--) {
            x.bitmap();
            x.opaque();
        }
    }

    /** Walks CB_COMPOUND4res (RFC 8881 §20.2): status, tag, every operation's result. */
    static Reply callbackReply(ByteBuf results) {
        Xdr x = new Xdr(results.duplicate(), results.readerIndex(), Set.of());
        int status = x.u32();
        x.opaque(); // tag
        long count = Integer.toUnsignedLong(x.u32());
        List<OpResult> out = new ArrayList<>();
        boolean complete = true;
        try {
            for (long i = 0; i < count; i++) {
                int opcode = x.u32();
                int opStatus = x.u32();
                if (opStatus == NFS4_OK) {
                    switch (opcode) {
                        case 3 -> x.fattr(); // CB_GETATTR
                        case 11 -> x.skip(16 + 4 * 4); // CB_SEQUENCE: session, sequence, slot, highest, target
                        case 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 10044 -> {
                        }
                        default -> throw new Stop("callback opcode " + opcode);
                    }
                }
                out.add(new OpResult(opcode, opStatus, -1, false));
            }
        } catch (Stop | IndexOutOfBoundsException e) {
            complete = false;
        }
        return new Reply(status, List.copyOf(out), complete);
    }

    static long pad(long n) {
        return (n + 3) & ~3L;
    }

    /**
     * Walks COMPOUND4args from the tag on.
     *
     * @param args the Call's arguments (not consumed)
     * @param messageStart the index in {@code args}' buffer of the RPC message's first octet (Position 0)
     * @param readChunkPositions the Positions of the Call's Read chunks
     */
    static Call call(ByteBuf args, int messageStart, Set<Long> readChunkPositions) {
        Xdr x = new Xdr(args.duplicate(), messageStart, readChunkPositions);
        x.opaque(); // tag
        int minor = x.u32();
        int count = x.u32();
        List<Integer> ops = new ArrayList<>();
        Set<Long> eligible = new LinkedHashSet<>();
        Set<Long> reduced = new LinkedHashSet<>();
        boolean complete = true;
        try {
            for (int i = 0; i < count; i++) {
                int opcode = x.u32();
                ops.add(opcode);
                arguments(x, opcode, readChunkPositions, eligible, reduced);
            }
        } catch (Stop | IndexOutOfBoundsException e) {
            complete = false;
        }
        return new Call(minor, count, List.copyOf(ops), complete, eligible, reduced);
    }

    /** An eligible opaque argument: inline, or carried by the Read chunk at its Position. */
    private static void eligible(Xdr x, Set<Long> readChunks, Set<Long> eligible, Set<Long> reduced) {
        long length = Integer.toUnsignedLong(x.u32());
        long position = x.position();
        eligible.add(position);
        if (readChunks.contains(position)) {
            reduced.add(position);
            x.removed += pad(length);
        } else {
            x.skip(pad(length));
        }
    }

    private static void arguments(Xdr x, int op, Set<Long> readChunks, Set<Long> eligible, Set<Long> reduced) {
        switch (op) {
            case OP_ACCESS, OP_OPENATTR, OP_SECINFO_NO_NAME, OP_RECLAIM_COMPLETE -> x.skip(4);
            case OP_CLOSE, OP_OPEN_CONFIRM -> x.skip(4 + 16);
            case OP_COMMIT -> x.skip(12);
            case OP_CREATE -> {
                int type = x.u32();
                if (type == NF4LNK) {
                    eligible(x, readChunks, eligible, reduced);
                } else if (type == NF4BLK || type == NF4CHR) {
                    x.skip(8);
                }
                x.opaque();
                x.fattr();
            }
            case OP_DELEGPURGE, OP_RENEW, OP_DESTROY_CLIENTID -> x.skip(8);
            case OP_DELEGRETURN, OP_FREE_STATEID, OP_OFFLOAD_CANCEL, OP_OFFLOAD_STATUS -> x.stateid();
            case OP_GETATTR -> x.bitmap();
            case OP_GETFH, OP_LOOKUPP, OP_PUTPUBFH, OP_PUTROOTFH, OP_READLINK, OP_RESTOREFH, OP_SAVEFH,
                    OP_ILLEGAL -> {
            }
            case OP_LINK, OP_LOOKUP, OP_PUTFH, OP_REMOVE, OP_SECINFO -> x.opaque();
            case OP_LOCK -> {
                x.skip(4 + 4 + 8 + 8);
                if (x.bool()) { // open_to_lock_owner4
                    x.skip(4 + 16 + 4 + 8);
                    x.opaque();
                } else {
                    x.skip(16 + 4);
                }
            }
            case OP_LOCKT -> {
                x.skip(4 + 8 + 8 + 8);
                x.opaque();
            }
            case OP_LOCKU -> x.skip(4 + 4 + 16 + 8 + 8);
            case OP_NVERIFY, OP_VERIFY -> x.fattr();
            case OP_OPEN -> {
                x.skip(4 + 4 + 4 + 8);
                x.opaque(); // open_owner4
                if (x.u32() == OPEN4_CREATE) {
                    int how = x.u32();
                    if (how == UNCHECKED4 || how == GUARDED4) {
                        x.fattr();
                    } else if (how == EXCLUSIVE4) {
                        x.skip(8);
                    } else if (how == EXCLUSIVE4_1) {
                        x.skip(8);
                        x.fattr();
                    } else {
                        throw new Stop("createmode " + how);
                    }
                }
                int claim = x.u32();
                switch (claim) {
                    case CLAIM_NULL, CLAIM_DELEGATE_PREV -> x.opaque();
                    case CLAIM_PREVIOUS -> x.skip(4);
                    case CLAIM_DELEGATE_CUR -> {
                        x.stateid();
                        x.opaque();
                    }
                    case CLAIM_FH, CLAIM_DELEG_PREV_FH -> {
                    }
                    case CLAIM_DELEG_CUR_FH -> x.stateid();
                    default -> throw new Stop("claim " + claim);
                }
            }
            case OP_OPEN_DOWNGRADE -> x.skip(16 + 4 + 4 + 4);
            case OP_READ, OP_READ_PLUS -> x.skip(16 + 8 + 4);
            case OP_READDIR -> {
                x.skip(8 + 8 + 4 + 4);
                x.bitmap();
            }
            case OP_RENAME -> {
                x.opaque();
                x.opaque();
            }
            case OP_SETATTR -> {
                x.stateid();
                x.fattr();
            }
            case OP_SETCLIENTID -> {
                x.skip(8);
                x.opaque();
                x.skip(4);
                x.opaque();
                x.opaque();
                x.skip(4);
            }
            case OP_SETCLIENTID_CONFIRM -> x.skip(16);
            case OP_WRITE -> {
                x.skip(16 + 8 + 4);
                eligible(x, readChunks, eligible, reduced);
            }
            case OP_RELEASE_LOCKOWNER -> {
                x.skip(8);
                x.opaque();
            }
            case OP_BACKCHANNEL_CTL -> {
                x.skip(4);
                callbackSecParms(x);
            }
            case OP_BIND_CONN_TO_SESSION -> x.skip(16 + 4 + 4);
            case OP_EXCHANGE_ID -> {
                x.skip(8);
                x.opaque();
                x.skip(4);
                int how = x.u32();
                if (how == SP4_MACH_CRED || how == SP4_SSV) {
                    x.bitmap();
                    x.bitmap();
                    if (how == SP4_SSV) {
                        x.opaques();
                        x.opaques();
                        x.skip(8);
                    }
                } else if (how != SP4_NONE) {
                    throw new Stop("state_protect " + how);
                }
                implId(x);
            }
            case OP_CREATE_SESSION -> {
                x.skip(8 + 4 + 4);
                channelAttrs(x);
                channelAttrs(x);
                x.skip(4);
                callbackSecParms(x);
            }
            case OP_DESTROY_SESSION -> x.skip(16);
            case OP_GET_DIR_DELEGATION -> {
                x.skip(4);
                x.bitmap();
                x.skip(12 + 12);
                x.bitmap();
                x.bitmap();
            }
            case OP_GETDEVICEINFO -> {
                x.skip(16 + 4 + 4);
                x.bitmap();
            }
            case OP_GETDEVICELIST -> x.skip(4 + 4 + 8 + 8);
            case OP_LAYOUTCOMMIT -> {
                x.skip(8 + 8 + 4 + 16);
                if (x.bool()) {
                    x.skip(8);
                }
                if (x.bool()) {
                    x.skip(12);
                }
                x.skip(4);
                x.opaque();
            }
            case OP_LAYOUTGET -> x.skip(4 + 4 + 4 + 8 + 8 + 8 + 16 + 4);
            case OP_LAYOUTRETURN -> {
                x.skip(4 + 4 + 4);
                if (x.u32() == 1) { // LAYOUTRETURN4_FILE
                    x.skip(8 + 8 + 16);
                    x.opaque();
                }
            }
            case OP_SEQUENCE -> x.skip(16 + 4 + 4 + 4 + 4);
            case OP_SET_SSV -> {
                x.opaque();
                x.opaque();
            }
            case OP_TEST_STATEID -> x.words(16);
            case OP_WANT_DELEGATION -> {
                x.skip(4);
                if (x.u32() == CLAIM_PREVIOUS) {
                    x.skip(4);
                }
            }
            case OP_ALLOCATE, OP_DEALLOCATE -> x.skip(16 + 8 + 8);
            case OP_COPY -> {
                x.skip(16 + 16 + 8 + 8 + 8 + 4 + 4);
                for (long n = x.count(); n > 0; n--) {
                    netloc(x);
                }
            }
            case OP_COPY_NOTIFY -> {
                x.stateid();
                netloc(x);
            }
            case OP_IO_ADVISE -> {
                x.skip(16 + 8 + 8);
                x.bitmap();
            }
            case OP_LAYOUTERROR -> {
                x.skip(8 + 8 + 16);
                x.words(16 + 4 + 4);
            }
            case OP_LAYOUTSTATS -> {
                x.skip(8 + 8 + 16 + 16 + 16 + 16 + 4);
                x.opaque();
            }
            case OP_SEEK -> x.skip(16 + 8 + 4);
            case OP_WRITE_SAME -> {
                x.skip(16 + 4 + 8 + 8 + 8 + 8 + 4 + 8);
                x.opaque();
            }
            case OP_CLONE -> x.skip(16 + 16 + 8 + 8 + 8);
            default -> throw new Stop("opcode " + op);
        }
    }

    /** callback_sec_parms4&lt;&gt; (RFC 8881 §18.36): AUTH_NONE, AUTH_SYS parameters or RPCSEC_GSS handles. */
    private static void callbackSecParms(Xdr x) {
        for (long n = x.count(); n > 0; n--) {
            int flavor = x.u32();
            if (flavor == AUTH_SYS) {
                x.skip(4);
                x.opaque();
                x.skip(8);
                x.words(4);
            } else if (flavor == 6) { // RPCSEC_GSS
                x.skip(4);
                x.opaque();
                x.opaque();
            } else if (flavor != AUTH_NONE) {
                throw new Stop("callback flavor " + flavor);
            }
        }
    }

    private static void channelAttrs(Xdr x) {
        x.skip(6 * 4);
        x.words(4);
    }

    /** nfs_impl_id4&lt;1&gt;: domain, name, date. */
    private static void implId(Xdr x) {
        for (long n = x.count(); n > 0; n--) {
            x.opaque();
            x.opaque();
            x.skip(12);
        }
    }

    /** netloc4 (RFC 7862 §4.1): a name, a URL or a netaddr4. */
    private static void netloc(Xdr x) {
        int type = x.u32();
        x.opaque();
        if (type == 3) { // NL4_NETADDR: netid and address
            x.opaque();
        }
    }

    /**
     * Walks COMPOUND4res from the status on.
     *
     * @param results the Reply's results after the RPC reply header (not consumed)
     * @param returnedWriteChunkLengths the octets each Write chunk of the Reply's Write list holds
     */
    static Reply reply(ByteBuf results, List<Long> returnedWriteChunkLengths) {
        Xdr x = new Xdr(results.duplicate(), results.readerIndex(), Set.of());
        int status = x.u32();
        x.opaque(); // tag
        long count = Integer.toUnsignedLong(x.u32());
        List<OpResult> out = new ArrayList<>();
        boolean complete = true;
        int readOps = 0;
        try {
            for (long i = 0; i < count; i++) {
                int opcode = x.u32();
                int opStatus = x.u32();
                long item = -1;
                boolean inChunk = false;
                if (isReadOperation(opcode)) {
                    int k = readOps++;
                    if (opStatus == NFS4_OK) {
                        if (opcode == OP_READ) {
                            x.skip(4); // eof
                        }
                        item = Integer.toUnsignedLong(x.u32());
                        inChunk = k < returnedWriteChunkLengths.size() && returnedWriteChunkLengths.get(k) > 0;
                        if (!inChunk) {
                            x.skip(pad(item));
                        }
                    }
                } else {
                    result(x, opcode, opStatus);
                }
                out.add(new OpResult(opcode, opStatus, item, inChunk));
            }
        } catch (Stop | IndexOutOfBoundsException e) {
            complete = false;
        }
        return new Reply(status, List.copyOf(out), complete);
    }

    private static void result(Xdr x, int op, int status) {
        if (op == OP_SETATTR) {
            x.bitmap(); // SETATTR4res: the bitmap follows whatever the status
            return;
        }
        if (status != NFS4_OK) {
            switch (op) {
                case OP_LOCK, OP_LOCKT -> {
                    if (status == NFS4ERR_DENIED) {
                        x.skip(8 + 8 + 4 + 8);
                        x.opaque();
                    }
                }
                case OP_SETCLIENTID -> {
                    if (status == NFS4ERR_CLID_INUSE) {
                        x.opaque();
                        x.opaque();
                    }
                }
                case OP_GETDEVICEINFO -> {
                    if (status == NFS4ERR_TOOSMALL) {
                        x.skip(4);
                    }
                }
                case OP_LAYOUTGET -> {
                    if (status == 10058) { // NFS4ERR_LAYOUTTRYLATER: will_signal_layout_avail
                        x.skip(4);
                    }
                }
                case OP_COPY -> {
                    if (status == 10094) { // NFS4ERR_OFFLOAD_NO_REQS: copy_requirements4
                        x.skip(8);
                    }
                }
                default -> {
                }
            }
            return;
        }
        switch (op) {
            case OP_ACCESS -> x.skip(8);
            case OP_CLOSE, OP_LOCK, OP_LOCKU, OP_OPEN_CONFIRM, OP_OPEN_DOWNGRADE -> x.stateid();
            case OP_COMMIT -> x.skip(8);
            case OP_CREATE -> {
                x.skip(20);
                x.bitmap();
            }
            case OP_GETATTR -> x.fattr();
            case OP_GETFH, OP_SET_SSV -> x.opaque();
            case OP_LINK, OP_REMOVE -> x.skip(20);
            case OP_RENAME -> x.skip(40);
            case OP_OPEN -> {
                x.stateid();
                x.skip(20 + 4);
                x.bitmap();
                delegation(x);
            }
            case OP_WANT_DELEGATION -> delegation(x);
            case OP_READDIR -> {
                x.skip(8);
                while (x.bool()) {
                    x.skip(8);
                    x.opaque();
                    x.fattr();
                }
                x.skip(4);
            }
            case OP_SECINFO, OP_SECINFO_NO_NAME -> {
                for (long n = x.count(); n > 0; n--) {
                    if (x.u32() == 6) { // RPCSEC_GSS: oid, qop, service
                        x.opaque();
                        x.skip(8);
                    }
                }
            }
            case OP_SETCLIENTID -> x.skip(16);
            case OP_WRITE -> x.skip(4 + 4 + 8);
            case OP_BIND_CONN_TO_SESSION -> x.skip(16 + 4 + 4);
            case OP_EXCHANGE_ID -> {
                x.skip(8 + 4 + 4);
                int how = x.u32();
                if (how == SP4_MACH_CRED || how == SP4_SSV) {
                    x.bitmap();
                    x.bitmap();
                    if (how == SP4_SSV) {
                        x.skip(4 * 4);
                        x.opaques();
                    }
                } else if (how != SP4_NONE) {
                    throw new Stop("state_protect " + how);
                }
                x.skip(8);
                x.opaque(); // server_owner4
                x.opaque(); // server_scope
                implId(x);
            }
            case OP_CREATE_SESSION -> {
                x.skip(16 + 4 + 4);
                channelAttrs(x);
                channelAttrs(x);
            }
            case OP_GET_DIR_DELEGATION -> {
                if (x.u32() == 0) { // GDD4_OK
                    x.skip(8 + 16);
                    x.bitmap();
                    x.bitmap();
                    x.bitmap();
                } else {
                    x.skip(4);
                }
            }
            case OP_GETDEVICEINFO -> {
                x.skip(4);
                x.opaque();
                x.bitmap();
            }
            case OP_GETDEVICELIST -> {
                x.skip(16);
                x.words(16);
                x.skip(4);
            }
            case OP_LAYOUTCOMMIT -> {
                if (x.bool()) {
                    x.skip(8);
                }
            }
            case OP_LAYOUTGET -> {
                x.skip(4 + 16);
                for (long n = x.count(); n > 0; n--) {
                    x.skip(8 + 8 + 4 + 4);
                    x.opaque();
                }
            }
            case OP_LAYOUTRETURN -> {
                if (x.bool()) {
                    x.stateid();
                }
            }
            case OP_SEQUENCE -> x.skip(16 + 5 * 4);
            case OP_TEST_STATEID -> x.words(4);
            case OP_COPY -> {
                writeResponse(x);
                x.skip(8);
            }
            case OP_WRITE_SAME -> writeResponse(x);
            case OP_COPY_NOTIFY -> {
                x.skip(12 + 16);
                for (long n = x.count(); n > 0; n--) {
                    netloc(x);
                }
            }
            case OP_IO_ADVISE -> x.bitmap();
            case OP_OFFLOAD_STATUS -> {
                x.skip(8);
                x.words(4);
            }
            case OP_READ_PLUS -> {
                x.skip(4);
                for (long n = x.count(); n > 0; n--) {
                    if (x.u32() == NFS4_CONTENT_DATA) {
                        x.skip(8);
                        x.opaque();
                    } else {
                        x.skip(16);
                    }
                }
            }
            case OP_SEEK -> x.skip(4 + 8);
            case OP_DELEGPURGE, OP_DELEGRETURN, OP_LOOKUP, OP_LOOKUPP, OP_NVERIFY, OP_OPENATTR, OP_PUTFH,
                    OP_PUTPUBFH, OP_PUTROOTFH, OP_RENEW, OP_RESTOREFH, OP_SAVEFH, OP_SETCLIENTID_CONFIRM, OP_VERIFY,
                    OP_RELEASE_LOCKOWNER, OP_BACKCHANNEL_CTL, OP_DESTROY_SESSION, OP_FREE_STATEID,
                    OP_DESTROY_CLIENTID, OP_RECLAIM_COMPLETE, OP_ALLOCATE, OP_DEALLOCATE, OP_LAYOUTERROR,
                    OP_LAYOUTSTATS, OP_OFFLOAD_CANCEL, OP_CLONE, OP_ILLEGAL -> {
            }
            default -> throw new Stop("opcode " + op);
        }
    }

    /** open_delegation4 (RFC 8881 §18.16): none, read or write delegation, or why none (4.1). */
    private static void delegation(Xdr x) {
        int type = x.u32();
        switch (type) {
            case OPEN_DELEGATE_NONE -> {
            }
            case 1, 2 -> { // READ, WRITE: stateid, recall, (space limit), nfsace4
                x.skip(16 + 4);
                if (type == 2) {
                    x.skip(4 + 8);
                }
                x.skip(12);
                x.opaque();
            }
            case OPEN_DELEGATE_NONE_EXT -> {
                int why = x.u32();
                if (why == WND4_CONTENTION || why == WND4_RESOURCE) {
                    x.skip(4);
                }
            }
            default -> throw new Stop("delegation type " + type);
        }
    }

    /** write_response4 (RFC 7862 §15.2): callback id&lt;1&gt;, count, committed, verifier. */
    private static void writeResponse(Xdr x) {
        x.words(16);
        x.skip(8 + 4 + 8);
    }
}
