package org.iwarp4j.interop.siw;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.iwarp4j.interop.peer.LinuxPeer;

/**
 * iwarp_peer (siw-tools/iwarp_peer.c) on the peer: built on this host by siw-tools/build.sh
 * (the guest has no compiler; both are Debian bookworm with rdma-core 44) and copied into the
 * peer's /tmp once per peer, as gzip + base64 inside the command line.
 */
final class IwarpPeerProgram {

    private static final Map<LinuxPeer, IwarpPeerProgram> INSTALLED = new ConcurrentHashMap<>();
    private static final Pattern RESULT = Pattern.compile(
            "^result op=(\\w+) size=(\\d+) status=(ok|mismatch@(\\d+)) by=(\\w+)$", Pattern.MULTILINE);

    private final String path;

    private IwarpPeerProgram(String path) {
        this.path = path;
    }

    /** The program on {@code peer}, built and copied there on first use. */
    static IwarpPeerProgram on(LinuxPeer peer) {
        return INSTALLED.computeIfAbsent(peer, IwarpPeerProgram::install);
    }

    /** The shell command running the program with {@code args}. */
    String command(String... args) {
        return path + " " + String.join(" ", args);
    }

    /** The {@code result} lines of the program's output, as {@link TransferResult}s. */
    static List<TransferResult> results(String output) {
        List<TransferResult> results = new ArrayList<>();
        Matcher m = RESULT.matcher(output);
        while (m.find()) {
            int status = m.group(4) == null ? 0 : Integer.parseInt(m.group(4)) + 1;
            results.add(new TransferResult(Rendezvous.Op.valueOf(m.group(1).toUpperCase(java.util.Locale.ROOT)),
                    Integer.parseInt(m.group(2)), status, m.group(5)));
        }
        return results;
    }

    private static IwarpPeerProgram install(LinuxPeer peer) {
        try {
            Path binary = build();
            String target = "/tmp/iwarp4j/" + binary.getFileName();
            String encoded = Base64.getMimeEncoder(76, new byte[] {'\n'}).encodeToString(gzip(Files.readAllBytes(binary)));
            peer.exec("test -x " + target + " || { mkdir -p /tmp/iwarp4j && base64 -d <<'IWARP4J-B64' | gunzip > "
                    + target + ".tmp && chmod +x " + target + ".tmp && mv " + target + ".tmp " + target + "; }\n"
                    + encoded + "\nIWARP4J-B64\n").requireSuccess();
            return new IwarpPeerProgram(target);
        } catch (IOException e) {
            throw new IllegalStateException("cannot build or copy iwarp_peer: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted building iwarp_peer", e);
        }
    }

    /** Runs siw-tools/build.sh (Surefire runs in the module directory) and returns the binary. */
    private static Path build() throws IOException, InterruptedException {
        Path script = Path.of("siw-tools", "build.sh").toAbsolutePath();
        Path log = Files.createTempFile("siw-tools-build", ".log");
        try {
            Process build = new ProcessBuilder("bash", script.toString(), Path.of("target", "siw-tools").toAbsolutePath()
                    .toString()).redirectError(log.toFile()).start();
            String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!build.waitFor(10, TimeUnit.MINUTES) || build.exitValue() != 0 || out.isEmpty()) {
                build.destroyForcibly();
                throw new IOException(script + " failed: " + Files.readString(log));
            }
            return Path.of(out);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }
}
