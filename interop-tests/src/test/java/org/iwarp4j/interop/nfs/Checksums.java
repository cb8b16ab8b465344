package org.iwarp4j.interop.nfs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import org.iwarp4j.interop.peer.LinuxPeer;

/**
 * SHA-256 of files on this host and on the peer ({@code sha256sum}), and files of random content
 * on either side, so a transfer is judged by the same digest at both ends.
 */
final class Checksums {

    private static final int BLOCK = 1 << 16;

    private Checksums() {
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return sha256(in);
        }
    }

    static String sha256(InputStream in) throws IOException {
        MessageDigest digest = newDigest();
        try (DigestInputStream digesting = new DigestInputStream(in, digest)) {
            digesting.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static String sha256(byte[] data) {
        return HexFormat.of().formatHex(newDigest().digest(data));
    }

    /** {@code sha256sum path} on the peer. */
    static String sha256OnPeer(LinuxPeer peer, String path, Duration timeout) {
        String out = peer.exec("sha256sum " + path, timeout).requireSuccess().stdout();
        return out.substring(0, out.indexOf(' '));
    }

    /** Writes {@code size} octets from {@code new Random(seed)} to {@code file}. */
    static void writeRandom(Path file, long size, long seed) throws IOException {
        Random random = new Random(seed);
        byte[] block = new byte[BLOCK];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; left -= block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(left, block.length));
            }
        }
    }

    /** Creates {@code path} on the peer with {@code size} octets of /dev/urandom. */
    static void writeRandomOnPeer(LinuxPeer peer, String path, long size, Duration timeout) {
        peer.exec("head -c " + size + " /dev/urandom > " + path + " && test $(stat -c %s " + path + ") = " + size,
                timeout).requireSuccess();
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
