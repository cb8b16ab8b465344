package org.iwarp4j.interop.siw;

import io.netty.buffer.ByteBuf;

/**
 * One message of iwarp_peer's rendezvous (siw-tools/iwarp_peer.c): 24 octets, big-endian, sent
 * as an RDMAP Send. The actor asks for a transfer (REQ), the target lends its buffer (ADV), the
 * actor says a Write is complete (DONE), whoever checked the data says how it went (RESULT),
 * and the actor ends the run (BYE).
 *
 * <pre>
 *   0 u8 type | 1 u8 op | 2 u16 zero | 4 u32 length | 8 u64 addr | 16 u32 stag | 20 u32 status
 * </pre>
 *
 * @param status RESULT: 0 when the data was verified, else 1 + the offset of the first wrong octet
 */
record Rendezvous(Type type, Op op, int length, long addr, int stag, int status) {

    static final int LENGTH = 24;

    enum Type {
        REQ(1), ADV(2), DONE(3), RESULT(4), BYE(5);

        final int code;

        Type(int code) {
            this.code = code;
        }

        static Type of(int code) {
            for (Type t : values()) {
                if (t.code == code) {
                    return t;
                }
            }
            throw new IllegalArgumentException("no rendezvous message type " + code);
        }
    }

    /** The transfers, with iwarp_peer's numbers and option names. */
    enum Op {
        NONE(0), WRITE(1), READ(2), SEND(3);

        final int code;

        Op(int code) {
            this.code = code;
        }

        static Op of(int code) {
            for (Op o : values()) {
                if (o.code == code) {
                    return o;
                }
            }
            throw new IllegalArgumentException("no rendezvous op " + code);
        }

        String option() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Rendezvous request(Op op, int length) {
        return new Rendezvous(Type.REQ, op, length, 0, 0, 0);
    }

    static Rendezvous advertise(Op op, int length, long addr, int stag) {
        return new Rendezvous(Type.ADV, op, length, addr, stag, 0);
    }

    static Rendezvous done(Op op, int length) {
        return new Rendezvous(Type.DONE, op, length, 0, 0, 0);
    }

    static Rendezvous result(Op op, int length, int status) {
        return new Rendezvous(Type.RESULT, op, length, 0, 0, status);
    }

    static Rendezvous bye() {
        return new Rendezvous(Type.BYE, Op.NONE, 0, 0, 0, 0);
    }

    /** Writes the 24 octets at {@code out}'s writer index. */
    void encode(ByteBuf out) {
        out.writeByte(type.code).writeByte(op.code).writeShort(0).writeInt(length).writeLong(addr).writeInt(stag)
                .writeInt(status);
    }

    /** Reads 24 octets at {@code in}'s reader index (the caller keeps ownership of {@code in}). */
    static Rendezvous decode(ByteBuf in) {
        Type type = Type.of(in.readUnsignedByte());
        Op op = Op.of(in.readUnsignedByte());
        in.skipBytes(2);
        return new Rendezvous(type, op, in.readInt(), in.readLong(), in.readInt(), in.readInt());
    }
}
