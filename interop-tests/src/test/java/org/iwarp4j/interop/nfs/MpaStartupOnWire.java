package org.iwarp4j.interop.nfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.iwarp4j.testkit.TcpDirection;

/**
 * The MPA Request and Reply (RFC 5044 §7.1.1) at the start of a captured connection, read octet by
 * octet here rather than by our own MPA decoder, so the interop facts are judged independently:
 * the RFC 6581 IRD/ORD word and the RFC 8797 RPC-over-RDMA block in the private data.
 */
record MpaStartupOnWire(Frame request, Frame reply) {

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    /** The first connection of {@code pcap} that starts with an MPA Request. */
    static MpaStartupOnWire firstIn(Path pcap) throws IOException {
        for (TcpConnection c : PcapReader.read(pcap).connections()) {
            for (TcpDirection d : new TcpDirection[] {c.clientToServer(), c.serverToClient()}) {
                TcpDirection other = d == c.clientToServer() ? c.serverToClient() : c.clientToServer();
                byte[] stream = d.streamBeforeFirstGap();
                if (startsWith(stream, REQUEST_KEY)) {
                    return new MpaStartupOnWire(Frame.parse(stream), Frame.parse(other.streamBeforeFirstGap()));
                }
            }
        }
        throw new AssertionError("no connection in " + pcap + " starts with an MPA Request");
    }

    private static boolean startsWith(byte[] stream, byte[] key) {
        return stream.length >= key.length && Arrays.equals(stream, 0, key.length, key, 0, key.length);
    }

    /** One startup frame: flags (byte 16), revision (byte 17), the PD_Length octets of private data. */
    record Frame(boolean isRequest, int flags, int revision, byte[] privateData) {

        static final int FLAG_CRC = 0x40;       // C, RFC 5044 §7.1.1
        static final int FLAG_ENHANCED = 0x10;  // S, RFC 6581 §5

        static Frame parse(byte[] stream) {
            if (stream.length < 20 || !(startsWith(stream, REQUEST_KEY) || startsWith(stream, REPLY_KEY))) {
                throw new AssertionError("not an MPA Request or Reply: " + stream.length + " octets");
            }
            int length = (stream[18] & 0xFF) << 8 | (stream[19] & 0xFF);
            if (stream.length < 20 + length) {
                throw new AssertionError("private data cut short: PD_Length " + length);
            }
            return new Frame(startsWith(stream, REQUEST_KEY), stream[16] & 0xFF, stream[17] & 0xFF,
                    Arrays.copyOfRange(stream, 20, 20 + length));
        }

        boolean crc() {
            return (flags & FLAG_CRC) != 0;
        }

        boolean enhanced() {
            return (flags & FLAG_ENHANCED) != 0 && revision >= 2 && privateData.length >= 4;
        }

        /** IRD of the RFC 6581 word: the low 14 bits of its first half. */
        int ird() {
            return word(0) & 0x3FFF;
        }

        /** ORD of the RFC 6581 word: the low 14 bits of its second half. */
        int ord() {
            return word(2) & 0x3FFF;
        }

        private int word(int offset) {
            if (!enhanced()) {
                throw new AssertionError("no RFC 6581 IRD/ORD word: flags " + Integer.toHexString(flags)
                        + ", revision " + revision);
            }
            return (privateData[offset] & 0xFF) << 8 | (privateData[offset + 1] & 0xFF);
        }

        /** The RFC 8797 block, searched for at any offset as its §5.2 says; empty if absent or not version 1. */
        Optional<RpcRdmaBlock> rpcRdmaBlock() {
            for (int i = 0; i + RpcRdmaBlock.LENGTH <= privateData.length; i++) {
                if (RpcRdmaBlock.startsAt(privateData, i)) {
                    return Optional.of(RpcRdmaBlock.at(privateData, i));
                }
            }
            return Optional.empty();
        }
    }

    /**
     * RFC 8797 §4: Format Identifier 0xF6AB0E18, Version, 7 reserved bits and R, Send Size and
     * Receive Size encoded as KiB - 1.
     */
    record RpcRdmaBlock(int offset, int version, boolean remoteInvalidation, int sendSize, int receiveSize) {

        static final int LENGTH = 8;
        private static final int FORMAT_IDENTIFIER = 0xF6AB0E18;

        static boolean startsAt(byte[] pd, int i) {
            int id = (pd[i] & 0xFF) << 24 | (pd[i + 1] & 0xFF) << 16 | (pd[i + 2] & 0xFF) << 8 | (pd[i + 3] & 0xFF);
            return id == FORMAT_IDENTIFIER && pd[i + 4] == 1;
        }

        static RpcRdmaBlock at(byte[] pd, int i) {
            return new RpcRdmaBlock(i, pd[i + 4] & 0xFF, (pd[i + 5] & 0x01) != 0,
                    ((pd[i + 6] & 0xFF) + 1) * 1024, ((pd[i + 7] & 0xFF) + 1) * 1024);
        }
    }
}
