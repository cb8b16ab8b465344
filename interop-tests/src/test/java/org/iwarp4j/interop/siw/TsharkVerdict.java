package org.iwarp4j.interop.siw;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.testkit.Tshark;

/**
 * Wireshark's verdict on a recording of our side of siw connections (issue 4, case 6): how many
 * MPA Requests and Replies it found, the RDMAP message of every FPDU, the FPDUs whose CRC32c it
 * checked and found good or bad, malformed frames, TCP anomalies, and the frames carrying our
 * wake-up Write ({@code QueuePairSettings.Builder.wakeUpWriteAfter}): a zero-length RDMA Write to
 * STag 1, TO 0, which an Initiator sends when the Responder stays silent after its first FPDU.
 */
record TsharkVerdict(int requests, int replies, List<String> rdmapOpcodes, int goodCrcs, int badCrcs,
                     int malformed, String tcpAnomalies, int wakeUpWrites) {

    /** A tagged RDMA Write with no payload (ULPDU = the 14-octet DDP/RDMAP tagged header) to STag 1, TO 0. */
    static final String WAKE_UP_WRITE = "iwarp_rdma.opcode == 0x00 && iwarp_ddp.stag == 1"
            + " && iwarp_ddp.tagged_offset == 0 && iwarp_mpa.ulpdulength == 14";

    static TsharkVerdict of(Path pcap) throws IOException, InterruptedException {
        String verbose = Tshark.read(pcap, "-V");
        return new TsharkVerdict(
                Tshark.values(pcap, "iwarp_mpa.req", "iwarp_mpa.key.req").size(),
                Tshark.values(pcap, "iwarp_mpa.rep", "iwarp_mpa.key.rep").size(),
                Tshark.values(pcap, "iwarp_rdma", "iwarp_rdma.opcode"),
                Tshark.count(verbose, "(Good CRC32)"),
                Tshark.count(verbose, "Bad CRC32"),
                Tshark.count(verbose, "Malformed"),
                Tshark.read(pcap, "-Y", "tcp.analysis.flags").strip(),
                Tshark.values(pcap, WAKE_UP_WRITE, "frame.number").size());
    }

    @Override
    public String toString() {
        return "tshark: " + requests + " MPA Requests, " + replies + " Replies, " + rdmapOpcodes.size()
                + " FPDUs with an RDMAP header, " + goodCrcs + " good CRC32c, " + badCrcs + " bad, " + malformed
                + " malformed; TCP anomalies: " + (tcpAnomalies.isEmpty() ? "none" : tcpAnomalies) + "; "
                + wakeUpWrites + " wake-up Writes";
    }
}
