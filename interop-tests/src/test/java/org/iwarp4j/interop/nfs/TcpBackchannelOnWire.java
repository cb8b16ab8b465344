package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.testkit.PcapReader;
import org.iwarp4j.testkit.TcpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NFSv4.1 back channel over TCP in a capture taken on the Linux client (tcpdump in the guest),
 * read octet by octet here (record marking, RFC 5531 §11; call and reply headers, §9) rather than
 * by our own RPC code: on the connection to our server's port, our CB_NULL and CB_COMPOUND travel
 * as CALL records from the server to the client, and the client's accepted, successful REPLY
 * records with the same xids travel back on the same connection (RFC 8881 §2.10.3.1).
 */
final class TcpBackchannelOnWire {

    private static final Logger LOG = LoggerFactory.getLogger(TcpBackchannelOnWire.class);

    private TcpBackchannelOnWire() {
    }

    /**
     * Whether {@code pcap} (perhaps still being written: a partial last packet is no error here)
     * already holds both callbacks and their replies. tcpdump in a slow guest writes behind the
     * traffic, so a test waits for this before it stops tcpdump: stopped at once, it had lost the
     * CB_COMPOUND that Linux had already answered (`.ci/run` of acada50).
     */
    static boolean holdsBothDirections(byte[] pcap, int serverPort) {
        try {
            assertBothDirections(new java.io.ByteArrayInputStream(pcap), serverPort, false);
            return true;
        } catch (IOException | RuntimeException | AssertionError notYet) {
            return false;
        }
    }

    static void assertBothDirections(InputStream pcap, int serverPort) throws IOException {
        assertBothDirections(pcap, serverPort, true);
    }

    private static void assertBothDirections(InputStream pcap, int serverPort, boolean logged) throws IOException {
        TcpConnection c = PcapReader.read(pcap).connections().stream().filter(k -> k.serverPort() == serverPort)
                .findFirst().orElseThrow(() -> new AssertionError("no connection to port " + serverPort + " captured"));
        Map<Integer, Integer> calls = new HashMap<>();
        for (ByteBuffer m : records(c.serverToClient().streamBeforeFirstGap())) {
            if (m.remaining() >= 24 && m.getInt(4) == 0 && m.getInt(12) == BackchannelOnWire.LINUX_CB_PROGRAM) {
                calls.put(m.getInt(0), m.getInt(20));
                if (logged) {
                    LOG.info("server to client: CALL xid 0x{} program 0x{} procedure {}",
                            Integer.toHexString(m.getInt(0)), Integer.toHexString(m.getInt(12)), m.getInt(20));
                }
            }
        }
        assertThat(calls.values()).as("CB_NULL (0) and CB_COMPOUND (1) from our server on the client's connection")
                .contains(0, 1);
        Map<Integer, Integer> answered = new HashMap<>();
        for (ByteBuffer m : records(c.clientToServer().streamBeforeFirstGap())) {
            if (m.remaining() >= 24 && m.getInt(4) == 1 && calls.containsKey(m.getInt(0))) {
                assertThat(m.getInt(8)).as("MSG_ACCEPTED").isZero();
                int verifierLength = m.getInt(16);
                assertThat(m.getInt(20 + ((verifierLength + 3) & ~3))).as("SUCCESS").isZero();
                answered.put(calls.get(m.getInt(0)), m.getInt(0));
                if (logged) {
                    LOG.info("client to server: REPLY xid 0x{} SUCCESS", Integer.toHexString(m.getInt(0)));
                }
            }
        }
        assertThat(answered).as("Linux's replies on the same connection").containsKeys(0, 1);
    }

    /** The RPC messages of one direction's stream: fragments joined, a partial last record left out. */
    private static List<ByteBuffer> records(byte[] stream) {
        List<ByteBuffer> out = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
        while (in.remaining() >= 4) {
            int mark = in.getInt();
            int length = mark & 0x7FFF_FFFF;
            if (in.remaining() < length) {
                break;
            }
            byte[] fragment = new byte[length];
            in.get(fragment);
            record.writeBytes(fragment);
            if (mark < 0) {
                out.add(ByteBuffer.wrap(record.toByteArray()));
                record.reset();
            }
        }
        return out;
    }
}
