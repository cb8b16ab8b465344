package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.conformance.probe.Probe;
import org.iwarp4j.conformance.probe.ProbeReport;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.junit.jupiter.api.Test;

class SiwProbeInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    SiwProbeInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @Test
    void probeRpingServer() throws Exception {
        CrcMode.OFF.applyTo(peer);
        GuestLog log = GuestLog.mark(peer);
        int port = GuestPorts.next();
        try (BackgroundCommand linux = peer.start("exec rping -s -P -a " + peer.peerAddress().getHostAddress()
                + " -p " + port)) {
            peer.awaitListening(port, TIMEOUT);
            InetSocketAddress server = peer.forwardedPort(port);
            ProbeReport report = Probe.builder(server).timeout(Duration.ofSeconds(10)).build().run();
            System.out.print(report.toTable());
            System.out.print(report.toJson());
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int status = IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), "probe",
                    server.getHostString() + ":" + server.getPort());
            System.out.println("exit " + status);
            System.out.print(out);
            System.out.print(err);
            System.out.println(log.siwLinesSince());
            System.out.println(linux.kill());
        }
    }
}
