package org.iwarp4j.tools.nfs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.iwarp4j.nfs.NfsServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A path no export holds: the error lists the server's exports, which the server names, so a name
 * with escape sequences in it must reach the operator's terminal escaped.
 */
class NfsSessionExportListTest {

    @TempDir
    Path dir;

    @Test
    void theExportsAreListedWithTheirControlCharactersEscaped() throws Exception {
        try (NfsServer s = NfsServer.builder(dir).exportName("/ex\u001b]0;pwned\u0007port")
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(1).start()) {
            NfsServerAccess access = new NfsServerAccess(s.tcpPort(), 20049, s.tcpPort(), null, 0, 0,
                    Duration.ofSeconds(20));
            assertThatThrownBy(() -> NfsSession.open(NfsLocation.parse("127.0.0.1:/elsewhere"), access,
                    NfsTransport.TCP, 256 * 1024, 4, null, null, NfsVersion.V3))
                    .isInstanceOf(IOException.class)
                    .hasMessage("no export of 127.0.0.1 holds /elsewhere (exports: /ex\\x1b]0;pwned\\x07port)");
        }
    }
}
