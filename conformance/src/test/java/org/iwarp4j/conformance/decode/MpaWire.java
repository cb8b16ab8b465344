package org.iwarp4j.conformance.decode;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.RtrType;

/**
 * Builds MPA, DDP and RDMAP octets for synthetic captures, written out from the RFCs' figures
 * (RFC 5044 §4 and §7.1, RFC 5041 §4, RFC 5040 §4) independently of the decoder under test.
 */
final class MpaWire {

    private MpaWire() {
    }

    static byte[] startup(boolean request, int flags, int revision, byte[] privateData) {
        ByteBuffer b = ByteBuffer.allocate(20 + privateData.length);
        b.put((request ? "MPA ID Req Frame" : "MPA ID Rep Frame").getBytes(StandardCharsets.US_ASCII));
        b.put((byte) flags).put((byte) revision).putShort((short) privateData.length).put(privateData);
        return b.array();
    }

    static byte[] enhanced(boolean peerToPeer, Set<RtrType> rtr, int ird, int ord, byte[] more) {
        int word = new EnhancedConnectionData(peerToPeer, rtr, ird, ord).encode();
        return ByteBuffer.allocate(4 + more.length).putInt(word).put(more).array();
    }

    /** The RFC 8797 block: identifier 0xf6ab0e18, version 1, flags, send and receive size in KiB - 1. */
    static byte[] rpcRdmaPrivateData(int sendKib, int receiveKib) {
        return ByteBuffer.allocate(8).putInt(0xf6ab0e18).put((byte) 1).put((byte) 0).put((byte) (sendKib - 1))
                .put((byte) (receiveKib - 1)).array();
    }

    /** One direction's FPDU writer: marker positions count from Full Operation (RFC 5044 §4.3). */
    static final class Sender {
        private final long fullOperation;
        private final boolean markers;
        private long pos;

        Sender(long fullOperation, boolean markers) {
            this.fullOperation = fullOperation;
            this.markers = markers;
            this.pos = fullOperation;
        }

        byte[] fpdu(byte[] ulpdu) {
            int pad = (4 - (2 + ulpdu.length) % 4) % 4;
            byte[] body = ByteBuffer.allocate(2 + ulpdu.length + pad).putShort((short) ulpdu.length).put(ulpdu).array();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long lengthField = -1;
            int i = 0;
            while (i < body.length) {
                if (markers && (pos - fullOperation) % 512 == 0) {
                    marker(out, lengthField < 0 ? 0 : pos - lengthField);
                    continue;
                }
                if (i == 0) {
                    lengthField = pos;
                }
                out.write(body[i++]);
                pos++;
            }
            if (markers && (pos - fullOperation) % 512 == 0) {
                marker(out, pos - lengthField); // directly before the CRC: covered by it
            }
            byte[] covered = out.toByteArray();
            CRC32C crc = new CRC32C();
            crc.update(covered);
            int value = (int) crc.getValue();
            byte[] crcOctets = {(byte) value, (byte) (value >>> 8), (byte) (value >>> 16), (byte) (value >>> 24)};
            for (byte b : crcOctets) {
                if (markers && (pos - fullOperation) % 512 == 0) {
                    marker(out, pos - lengthField);
                }
                out.write(b);
                pos++;
            }
            return out.toByteArray();
        }

        private void marker(ByteArrayOutputStream out, long pointer) {
            out.writeBytes(ByteBuffer.allocate(4).putShort((short) 0).putShort((short) pointer).array());
            pos += 4;
        }
    }

    static byte[] untagged(int opcode, boolean last, int rsvdUlp, int qn, long msn, long mo, byte[] payload) {
        return ByteBuffer.allocate(18 + payload.length).put((byte) ((last ? 0x40 : 0) | 1)).put((byte) (0x40 | opcode))
                .putInt(rsvdUlp).putInt(qn).putInt((int) msn).putInt((int) mo).put(payload).array();
    }

    static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        return ByteBuffer.allocate(14 + payload.length).put((byte) (0x80 | (last ? 0x40 : 0) | 1))
                .put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload).array();
    }

    static byte[] send(long msn, byte[] payload) {
        return untagged(3, true, 0, 0, msn, 0, payload);
    }

    static byte[] write(int stag, long to, byte[] payload) {
        return tagged(0, true, stag, to, payload);
    }

    static byte[] readRequest(long msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        byte[] rr = ByteBuffer.allocate(28).putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag)
                .putLong(sourceTo).array();
        return untagged(1, true, 0, 1, msn, 0, rr);
    }

    static byte[] readResponse(int stag, long to, byte[] payload, boolean last) {
        return tagged(2, last, stag, to, payload);
    }

    /** A Terminate: its 4 control octets as given, no headers. */
    static byte[] terminate(int b0, int b1, int b2, int b3) {
        return untagged(7, true, 0, 2, 1, 0, new byte[] {(byte) b0, (byte) b1, (byte) b2, (byte) b3});
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
