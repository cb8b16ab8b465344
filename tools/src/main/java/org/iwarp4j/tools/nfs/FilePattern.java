package org.iwarp4j.tools.nfs;

import io.netty.buffer.ByteBuf;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The benchmark file's octets as a function of their offset: a random block of {@link #PERIOD}
 * octets repeated. The period is no multiple of a page, an rsize or a wsize, so data placed at the
 * wrong offset changes the file's CRC32C; a fresh seed per run keeps a stale file from verifying.
 */
public final class FilePattern {

    /** 1 MiB + 4093 (a prime): never a multiple of 4096, 64 KiB or 1 MiB. */
    public static final int PERIOD = (1 << 20) + 4093;

    private final byte[] block = new byte[PERIOD];

    public FilePattern(long seed) {
        new SplittableRandom(seed).nextBytes(block);
    }

    /** Appends the file's octets {@code [offset, offset + length)} to {@code to}. */
    public void write(ByteBuf to, long offset, int length) {
        int at = (int) (offset % PERIOD);
        int left = length;
        while (left > 0) {
            int n = Math.min(left, PERIOD - at);
            to.writeBytes(block, at, n);
            left -= n;
            at = 0;
        }
    }

    /** CRC32C of the first {@code size} octets of the file. */
    public int crc32c(long size) {
        CRC32C crc = new CRC32C();
        long left = size;
        while (left > 0) {
            int n = (int) Math.min(left, PERIOD);
            crc.update(block, 0, n);
            left -= n;
        }
        return (int) crc.getValue();
    }
}
