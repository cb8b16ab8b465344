package org.iwarp4j.interop.siw;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.testkit.Tshark;

/**
 * Wireshark's verdict on a recording of our side of siw connections (issue 4, case 6): how many
 * MPA Requests and Replies it found, the RDMAP message of every FPDU, the FPDUs whose CRC32c it
 * checked and found good or bad, malformed frames, TCP anomalies.
 */
record TsharkVerdict(int requests, int replies, List<String> rdmapOpcodes, int goodCrcs, int badCrcs,
                     int malformed, String tcpAnomalies) {

    static TsharkVerdict of(Path pcap) throws IOException, InterruptedException {
        String verbose = Tshark.read(pcap, "-V");
        return new TsharkVerdict(
                Tshark.values(pcap, "iwarp_mpa.req", "iwarp_mpa.key.req").size(),
                Tshark.values(pcap, "iwarp_mpa.rep", "iwarp_mpa.key.rep").size(),
                Tshark.values(pcap, "iwarp_rdma", "iwarp_rdma.opcode"),
                Tshark.count(verbose, "(Good CRC32)"),
                Tshark.count(verbose, "Bad CRC32"),
                Tshark.count(verbose, "Malformed"),
                Tshark.read(pcap, "-Y", "tcp.analysis.flags").strip());
    }

    @Override
    public String toString() {
        return "tshark: " + requests + " MPA Requests, " + replies + " Replies, " + rdmapOpcodes.size()
                + " FPDUs with an RDMAP header, " + goodCrcs + " good CRC32c, " + badCrcs + " bad, " + malformed
                + " malformed; TCP anomalies: " + (tcpAnomalies.isEmpty() ? "none" : tcpAnomalies);
    }
}
