package org.iwarp4j.oncrpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcCallContext;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The RPC headers Linux's NFS client and server exchanged in testdata/captures/nfs3-rdma-siw.pcap
 * (behind RPC-over-RDMA headers), as tshark 4.0.17 dissects them; the table is checked in as
 * {@code nfs3-rdma-siw-rpc.psv} next to this class, with the command that made it, so the test
 * does not need tshark. The capture is complete, so the table holds every one of the 31 calls and
 * 31 replies. Every call and reply is decoded by our header decoders, compared field by field
 * with tshark, and re-encoded by our encoders to the same octets.
 */
class NfsCaptureRpcHeaderTest {

    private record Row(String[] f) {
        int frame() {
            return Integer.parseInt(f[0]);
        }

        boolean call() {
            return f[1].equals("0");
        }

        int xid() {
            return Integer.parseUnsignedInt(f[2].substring(2), 16);
        }

        byte[] raw() {
            return Hex.decode(f[17]);
        }
    }

    private static List<Row> rows() throws IOException {
        List<Row> rows = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                NfsCaptureRpcHeaderTest.class.getResourceAsStream("nfs3-rdma-siw-rpc.psv"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("#")) {
                    rows.add(new Row(line.split("\\|", -1)));
                }
            }
        }
        return rows;
    }

    private static String reencode(java.util.function.Consumer<XdrEncoder> body) {
        return RpcHeaderTest.encode(body);
    }

    @Test
    void everyCallHeaderDecodesToTsharksFieldsAndReencodesToTheSameOctets() throws IOException {
        int calls = 0;
        int authSys = 0;
        for (Row row : rows()) {
            if (!row.call()) {
                continue;
            }
            String[] f = row.f();
            XdrDecoder in = new XdrDecoder(Unpooled.wrappedBuffer(row.raw()));
            RpcCallHeader header = RpcCallHeader.decode(in);
            assertThat(in.isEmpty()).as("frame %d: tshark's rpc bytes end with the verifier", row.frame()).isTrue();
            assertThat(header.xid()).isEqualTo(row.xid());
            assertThat(header.rpcVersion()).isEqualTo(2);
            assertThat(header.program()).isEqualTo(Integer.parseInt(f[3]));
            assertThat(header.version()).isEqualTo(Integer.parseInt(f[4]));
            assertThat(header.procedure()).isEqualTo(Integer.parseInt(f[5]));
            assertThat(header.credential().flavor()).isEqualTo(Integer.parseInt(f[6]));
            assertThat(header.credential().length()).isEqualTo(Integer.parseInt(f[7]));
            assertThat(header.verifier()).isEqualTo(OpaqueAuth.NONE);
            if (header.credential().flavor() == 1) {
                AuthSys sys = AuthSys.decode(header.credential());
                assertThat(sys.stamp()).isEqualTo(Integer.parseUnsignedInt(f[8].substring(2), 16));
                assertThat(sys.machineName()).isEqualTo(f[9]);
                assertThat(sys.uid()).isEqualTo(Integer.parseInt(f[10]));
                assertThat(sys.gid()).isEqualTo(Integer.parseInt(f[11]));
                assertThat(sys.gids()).containsExactly(Arrays.stream(f[12].split(",")).mapToInt(Integer::parseInt).toArray());
                // Our AUTH_SYS encoder produces Linux's credential body octet for octet.
                assertThat(sys.toOpaqueAuth()).isEqualTo(header.credential());
                authSys++;
            }
            assertThat(reencode(header::encode)).as("frame %d", row.frame()).isEqualTo(Hex.encode(row.raw()));
            calls++;
        }
        assertThat(calls).isEqualTo(31);
        assertThat(authSys).isEqualTo(27); // all but the NULL calls of NFS and NFSACL on both connections
    }

    @Test
    void everyReplyHeaderDecodesToTsharksFieldsAndReencodesToTheSameOctets() throws IOException {
        int replies = 0;
        for (Row row : rows()) {
            if (row.call()) {
                continue;
            }
            String[] f = row.f();
            XdrDecoder in = new XdrDecoder(Unpooled.wrappedBuffer(row.raw()));
            RpcReplyHeader header = RpcReplyHeader.decode(in);
            assertThat(in.isEmpty()).isTrue();
            assertThat(header.xid()).isEqualTo(row.xid());
            assertThat(f[15]).isEqualTo("0");
            RpcReplyHeader.Accepted accepted = (RpcReplyHeader.Accepted) header;
            assertThat(accepted.stat().code()).isEqualTo(Integer.parseInt(f[16]));
            assertThat(accepted.verifier().flavor()).isEqualTo(Integer.parseInt(f[13]));
            assertThat(reencode(header::encode)).isEqualTo(Hex.encode(row.raw()));
            replies++;
        }
        assertThat(replies).isEqualTo(31);
    }

    @Test
    void ourDispatcherAnswersLinuxsCallsWithLinuxsReplyHeaders() throws Exception {
        // A stand-in for every program in the capture: success, no results.
        RpcDispatcher dispatcher = new RpcDispatcher();
        List<RpcCallContext> seen = new ArrayList<>();
        RpcProcedure record = RpcProcedure.of((ctx, args, results) -> seen.add(ctx));
        for (int program : new int[] {100003, 100227}) {
            RpcProgram.Builder b = RpcProgram.builder(program, 3);
            for (int proc = 0; proc <= 21; proc++) {
                b.procedure(proc, record);
            }
            dispatcher.register(b.build());
        }
        Map<Integer, Row> replies = new HashMap<>();
        List<Row> calls = new ArrayList<>();
        for (Row row : rows()) {
            if (row.call()) {
                calls.add(row);
            } else {
                replies.put(row.xid(), row);
            }
        }
        int compared = 0;
        for (Row call : calls) {
            XdrMessage reply = dispatcher.dispatch(XdrMessage.of(Unpooled.wrappedBuffer(call.raw())),
                    RpcTransportInfo.of("rdma", null, null)).get(5, TimeUnit.SECONDS);
            ByteBuf stream = reply.stream();
            try {
                Row expected = replies.get(call.xid());
                if (expected != null) {
                    assertThat(ByteBufUtil.hexDump(stream)).as("reply to frame %d", call.frame())
                            .isEqualTo(Hex.encode(expected.raw()));
                    compared++;
                }
            } finally {
                stream.release();
                reply.release();
            }
        }
        // Every call has its reply in the capture: 31 pairs.
        assertThat(compared).isEqualTo(31);
        assertThat(replies).hasSize(31);
        assertThat(seen).hasSize(31);
        assertThat(seen.get(1).authSys().machineName()).isEqualTo("iwarp4j-peer");
        assertThat(seen.get(1).call().procedure()).isEqualTo(19); // FSINFO
        assertThat(AcceptStat.SUCCESS.code()).isZero();
    }
}
