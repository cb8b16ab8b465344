package org.iwarp4j.oncrpc.sample;

/**
 * Result of {@code SINK}: {@code struct sink_res { unsigned int length; unsigned int crc32c; }}.
 *
 * @param length octets the server received
 * @param crc32c CRC32c (Castagnoli) of those octets, as java.util.zip.CRC32C computes it
 */
public record SinkResult(long length, int crc32c) {
}
