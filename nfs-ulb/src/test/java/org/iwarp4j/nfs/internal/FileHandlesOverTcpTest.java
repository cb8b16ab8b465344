package org.iwarp4j.nfs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NFS program behind a real RPC-over-TCP server, its file handles counting file-system calls:
 * AUTH_NONE GETATTRs of forged handles (the root handle's export id, made-up inode numbers) are
 * answered NFS3ERR_STALE on the wire, each after at most a few calls, over an export of 2,000 files.
 */
class FileHandlesOverTcpTest {

    @TempDir
    Path dir;

    @Test
    void forgedGetattrIsStaleOnTheWireAfterAFewFileSystemCalls() throws Exception {
        for (int d = 0; d < 4; d++) {
            Path sub = Files.createDirectory(dir.resolve("d" + d));
            for (int i = 0; i < 500; i++) {
                Files.createFile(sub.resolve(Integer.toString(i)));
            }
        }
        FileHandlesTest.CountingProbe probe = new FileHandlesTest.CountingProbe();
        Export export = new Export(dir, "/export");
        FileHandles handles = new FileHandles(export, probe);
        byte[] root = handles.rootHandle().data();
        ExecutorService workers = Executors.newSingleThreadExecutor();
        RpcTcpServer server = null;
        try (Nfs3Context ctx = new Nfs3Context(export, ExportOptions.defaults(), Nfs3Limits.defaults(), handles)) {
            RpcDispatcher dispatcher = new RpcDispatcher().register(new Nfs3Program(ctx, workers).toRpcProgram());
            server = RpcTcpServer.builder(dispatcher).bind(new InetSocketAddress("127.0.0.1", 0));
            try (Socket socket = new Socket("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort())) {
                socket.setSoTimeout(20_000);
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                DataInputStream in = new DataInputStream(socket.getInputStream());
                SplittableRandom random = new SplittableRandom(1813);
                for (int xid = 1; xid <= 200; xid++) {
                    byte[] fh = root.clone();
                    // Above any inode number a file system of 2,000 files hands out.
                    ByteBuffer.wrap(fh).putLong(20, random.nextLong(1L << 40, Long.MAX_VALUE));
                    long before = probe.calls.get();
                    int padded = (fh.length + 3) & ~3;
                    out.writeInt(0x8000_0000 | (44 + padded)); // last fragment; 11 words of header and length
                    out.writeInt(xid);
                    out.writeInt(0);       // CALL
                    out.writeInt(2);       // RPC version
                    out.writeInt(100003);  // NFS
                    out.writeInt(3);
                    out.writeInt(1);       // GETATTR
                    out.writeLong(0);      // AUTH_NONE credential
                    out.writeLong(0);      // AUTH_NONE verifier
                    out.writeInt(fh.length);
                    out.write(fh);
                    out.write(new byte[padded - fh.length]);
                    out.flush();
                    int mark = in.readInt();
                    byte[] reply = new byte[Math.min(mark & 0x7fff_ffff, 1024)];
                    in.readFully(reply);
                    ByteBuffer expected = ByteBuffer.allocate(28).putInt(xid).putInt(1) // REPLY
                            .putInt(0).putLong(0).putInt(0) // MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS
                            .putInt(Nfs3Status.NFS3ERR_STALE.value());
                    assertThat(mark & 0x8000_0000).as("last fragment").isNotZero();
                    assertThat(HexFormat.of().formatHex(reply)).as("reply to xid %d", xid)
                            .isEqualTo(HexFormat.of().formatHex(expected.array()));
                    // The reply is out, so the worker has made every call it will make for it.
                    assertThat(probe.calls.get() - before).as("file-system calls for xid %d", xid).isBetween(1L, 4L);
                }
            }
        } finally {
            if (server != null) {
                server.close();
            }
            workers.shutdownNow();
        }
    }
}
