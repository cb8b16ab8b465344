package org.iwarp4j.testkit;

import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * One record of a pcap file: the bytes as captured (possibly cut at the snapshot length), with
 * the 1-based frame number tshark and Wireshark show for it.
 */
record CapturedFrame(int number, Instant timestamp, int originalLength, ByteBuffer data) {
}
