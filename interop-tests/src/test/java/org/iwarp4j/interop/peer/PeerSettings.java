package org.iwarp4j.interop.peer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * How the harness finds or makes its peer; each setting is a system property, or the
 * environment variable in brackets:
 * <ul>
 * <li>{@code iwarp4j.interop.peer} [IWARP4J_PEER]: {@code auto} (default: a local siw device
 *     if this host has one, else the VM), {@code local} or {@code vm}.</li>
 * <li>{@code iwarp4j.interop.required} [CI=true implies it]: fail, rather than skip, the tests
 *     when no peer can be made.</li>
 * <li>{@code iwarp4j.interop.accel} [IWARP4J_VM_ACCEL]: {@code auto} (default: KVM if it boots
 *     here, else TCG), {@code kvm} or {@code tcg}.</li>
 * <li>{@code iwarp4j.interop.bootTimeout} [IWARP4J_VM_BOOT_TIMEOUT], seconds, default 300:
 *     TCG on a busy 2-core machine needs tens of seconds.</li>
 * <li>{@code iwarp4j.interop.probeTimeout} [IWARP4J_PEER_PROBE_TIMEOUT], seconds, default 75: how
 *     long a VM guest suspected of having stopped responding (a command timed out, or ssh failed)
 *     gets to run {@code true} over ssh before it is declared gone. A live guest answers in well
 *     under a second even under TCG, but on a loaded 2-core host QEMU itself can stall for tens of
 *     seconds; a probe during which QEMU got almost no CPU gives no verdict at all.</li>
 * <li>{@code iwarp4j.interop.vmScripts}: the directory of build-vm.sh and start-vm.sh,
 *     default {@code vm} in the module directory (where Surefire runs).</li>
 * <li>{@code iwarp4j.interop.logDir}: console and build logs, default {@code target/linux-peer}.</li>
 * </ul>
 */
record PeerSettings(String provider, boolean required, String accel, Duration bootTimeout, Duration probeTimeout,
        Path vmScripts, Path logDir) {

    static PeerSettings fromEnvironment() {
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        return new PeerSettings(
                setting("iwarp4j.interop.peer", "IWARP4J_PEER", "auto").toLowerCase(Locale.ROOT),
                ci || Boolean.parseBoolean(setting("iwarp4j.interop.required", null, "false")),
                setting("iwarp4j.interop.accel", "IWARP4J_VM_ACCEL", "auto").toLowerCase(Locale.ROOT),
                Duration.ofSeconds(Long.parseLong(setting("iwarp4j.interop.bootTimeout", "IWARP4J_VM_BOOT_TIMEOUT", "300"))),
                Duration.ofSeconds(Long.parseLong(setting("iwarp4j.interop.probeTimeout", "IWARP4J_PEER_PROBE_TIMEOUT", "75"))),
                Path.of(setting("iwarp4j.interop.vmScripts", null, "vm")).toAbsolutePath(),
                Path.of(setting("iwarp4j.interop.logDir", null, "target/linux-peer")).toAbsolutePath());
    }

    private static String setting(String property, String env, String fallback) {
        String value = System.getProperty(property);
        if (value == null && env != null) {
            value = System.getenv(env);
        }
        return value == null || value.isBlank() ? fallback : value.strip();
    }
}
