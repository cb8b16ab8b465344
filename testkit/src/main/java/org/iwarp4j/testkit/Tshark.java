package org.iwarp4j.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Wireshark's tshark as an independent judge of a capture: its iWARP dissectors find MPA
 * connections by their startup frames, check each FPDU's CRC32c ("Good CRC32" with {@code -V}) and
 * decode DDP and RDMAP. {@code scripts/install-test-deps.sh} installs it; tests skip without it.
 *
 * <p>Every read disables the RPC-over-RDMA heuristic, which shows small Sends of non-NFS traffic
 * as malformed RPC-over-RDMA (see docs/iwarp-command.md, {@code iwarp pcap}), and tries TCP's
 * heuristic dissectors (MPA's among them) before the dissectors registered for a port: an
 * ephemeral port can be one of those (tshark 4.0 gives TCP port 57000 to IRC, and a CI run's MPA
 * connection that got it was shown as IRC, its startup frames not found).
 */
public final class Tshark {

    private static final long TIMEOUT_SECONDS = 120;

    private Tshark() {
    }

    /** Whether tshark can be run. */
    public static boolean available() {
        try {
            Process p = new ProcessBuilder("tshark", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** What every read passes before its own arguments. */
    static final List<String> COMMON_OPTIONS = List.of("--disable-heuristic", "rpcrdma_iwarp",
            "-o", "tcp.try_heuristic_first:TRUE");

    /**
     * {@code tshark -r pcap} with {@link #COMMON_OPTIONS} and {@code args...}: what it prints on
     * standard output (its warnings, e.g. about running as root, go elsewhere).
     *
     * @throws IOException if tshark fails, or runs longer than two minutes
     */
    public static String read(Path pcap, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tshark", "-r", pcap.toString()));
        command.addAll(COMMON_OPTIONS);
        command.addAll(List.of(args));
        Path errors = Files.createTempFile("tshark", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(errors.toFile()).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no answer within " + TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + ": exit status " + p.exitValue() + ": "
                        + Files.readString(errors));
            }
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    /**
     * Every occurrence of {@code field} in the frames that {@code displayFilter} selects, in frame
     * order (a frame holding several FPDUs gives several).
     */
    public static List<String> values(Path pcap, String displayFilter, String field)
            throws IOException, InterruptedException {
        String text = read(pcap, "-Y", displayFilter, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=;",
                "-e", field);
        List<String> values = new ArrayList<>();
        for (String line : text.split("\\R")) {
            for (String value : line.split(";")) {
                if (!value.isBlank()) {
                    values.add(value.trim());
                }
            }
        }
        return values;
    }

    /** How often {@code needle} occurs in {@code text}, e.g. "(Good CRC32)" in {@code -V} output. */
    public static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }
}
