package org.iwarp4j.interop.peer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The VM's files (kernel, initramfs, ssh key), from {@code build-vm.sh}: it prints the cached
 * VM's directory at once when its inputs are unchanged, and builds it (minutes) otherwise.
 */
final class VmImage {

    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);

    private VmImage() {
    }

    static Path ensureBuilt(PeerSettings settings) throws PeerUnavailableException, InterruptedException {
        Path script = settings.vmScripts().resolve("build-vm.sh");
        if (!Files.isRegularFile(script)) {
            throw new PeerUnavailableException("no " + script + " (set -Diwarp4j.interop.vmScripts)");
        }
        Path log = settings.logDir().resolve("build-vm.log");
        try {
            Files.createDirectories(settings.logDir());
            Path printed = settings.logDir().resolve("build-vm.out");
            Process build = new ProcessBuilder(List.of("bash", script.toString()))
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(ProcessBuilder.Redirect.to(printed.toFile()))
                    .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
                    .start();
            if (!build.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                build.destroyForcibly();
                throw new PeerUnavailableException(script + " did not finish within " + BUILD_TIMEOUT + "; see " + log);
            }
            List<String> lines = Files.readAllLines(printed, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank()).toList();
            if (build.exitValue() != 0 || lines.isEmpty()) {
                throw new PeerUnavailableException(script + " failed (exit " + build.exitValue() + "):\n" + tail(log));
            }
            Path dir = Path.of(lines.get(lines.size() - 1));
            for (String file : List.of("vmlinux", "initrd.cpio", "id_ed25519")) {
                if (!Files.isRegularFile(dir.resolve(file))) {
                    throw new PeerUnavailableException(script + " printed " + dir + ", which has no " + file);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new PeerUnavailableException("cannot run " + script + ": " + e.getMessage(), e);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
