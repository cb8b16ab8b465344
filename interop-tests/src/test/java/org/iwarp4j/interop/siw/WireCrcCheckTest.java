package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** {@link WireCrcCheck} on streams built here: the classification the siw transfer test's quarantine rests on. */
class WireCrcCheckTest {

    private static final long WRITE_BASE = 0x1000;
    private static final int SIZE = 4096;
    private static final List<Integer> SIZES = List.of(1, SIZE);

    @Test
    void aStreamOfGoodFpdusHasNoBadOne() {
        byte[] stream = stream(write(0, 1000, false, false), write(1000, 1000, false, false), send(0, 7, false));

        WireCrcCheck.Audit audit = WireCrcCheck.audit(stream, WRITE_BASE, SIZES);

        assertThat(audit.firstBad()).isEmpty();
        assertThat(audit.goodFpdus()).isEqualTo(3);
        assertThat(audit.unchecked()).isZero();
    }

    @Test
    void aWrongCrcFieldOverThePatternIsFoundWithItsOffsetAndPayloadVerdict() {
        byte[] first = write(0, 1000, false, false);
        byte[] stream = stream(first, write(1000, 998, true, false));

        WireCrcCheck.Audit audit = WireCrcCheck.audit(stream, WRITE_BASE, SIZES);
        Optional<WireCrcCheck.BadFpdu> bad = audit.firstBad();

        assertThat(audit.goodFpdus()).isEqualTo(1);
        assertThat(bad).isPresent();
        assertThat(bad.get().streamOffset()).isEqualTo(first.length);
        assertThat(bad.get().ulpduLength()).isEqualTo(14 + 998);
        assertThat(bad.get().receivedCrc()).isNotEqualTo(bad.get().computedCrc());
        assertThat(bad.get().header()).startsWith("c1").hasSize(28);
        assertThat(bad.get().payload()).isEqualTo("998 payload octets are the WRITE pattern of a 4096-octet transfer"
                + " at offset 1000");
    }

    @Test
    void aDamagedPayloadIsReportedAsNoPattern() {
        byte[] stream = stream(write(0, 1000, false, true));

        Optional<WireCrcCheck.BadFpdu> bad = WireCrcCheck.audit(stream, WRITE_BASE, SIZES).firstBad();

        assertThat(bad).isPresent();
        assertThat(bad.get().streamOffset()).isZero();
        assertThat(bad.get().payload()).isEqualTo("1000 payload octets at offset 0 are not any WRITE pattern of "
                + SIZES);
    }

    @Test
    void anUntaggedSendIsCheckedAtItsMessageOffset() {
        byte[] stream = stream(send(2048, 100, true));

        Optional<WireCrcCheck.BadFpdu> bad = WireCrcCheck.audit(stream, WRITE_BASE, SIZES).firstBad();

        assertThat(bad).isPresent();
        assertThat(bad.get().header()).hasSize(36);
        assertThat(bad.get().payload()).isEqualTo("100 payload octets are the SEND pattern of a 4096-octet transfer"
                + " at offset 2048");
    }

    @Test
    void anFpduCutByTheEndOfTheRecordingIsNotChecked() {
        byte[] whole = stream(write(0, 1000, true, false));
        byte[] cut = Arrays.copyOf(whole, whole.length - 1);

        WireCrcCheck.Audit audit = WireCrcCheck.audit(cut, WRITE_BASE, SIZES);

        assertThat(audit.firstBad()).isEmpty();
        assertThat(audit.goodFpdus()).isZero();
        assertThat(audit.unchecked()).isEqualTo(cut.length - 23);
        assertThat(WireCrcCheck.audit(whole, WRITE_BASE, SIZES).firstBad()).isPresent();
    }

    /** An MPA Request (C=1, 3 octets of private data, skipped by the check) and then {@code fpdus}. */
    private static byte[] stream(byte[]... fpdus) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(new byte[] {0x40, 1, 0, 3, 9, 9, 9});
        for (byte[] fpdu : fpdus) {
            out.writeBytes(fpdu);
        }
        return out.toByteArray();
    }

    /** A tagged RDMA Write FPDU (DDP T=1, L=1; RDMAP opcode 0) of the 4 KiB Write pattern at {@code at}. */
    private static byte[] write(int at, int length, boolean badCrc, boolean badPayload) {
        ByteBuffer header = ByteBuffer.allocate(14).put((byte) 0xc1).put((byte) 0x40).putInt(0x1234)
                .putLong(WRITE_BASE + at);
        byte[] fpdu = fpdu(header.array(), pattern(Rendezvous.Op.WRITE, at, length), badCrc);
        if (badPayload) {
            fpdu[2 + 14 + length / 2] ^= 0x10; // after the CRC was computed: the octets changed, not the CRC field
        }
        return fpdu;
    }

    /** An untagged Send FPDU (DDP T=0, L=1, QN 0; RDMAP opcode 3) of the 4 KiB Send pattern at MO {@code at}. */
    private static byte[] send(int at, int length, boolean badCrc) {
        ByteBuffer header = ByteBuffer.allocate(18).put((byte) 0x41).put((byte) 0x43).putInt(0).putInt(0)
                .putInt(1).putInt(at);
        return fpdu(header.array(), pattern(Rendezvous.Op.SEND, at, length), badCrc);
    }

    private static byte[] pattern(Rendezvous.Op op, int at, int length) {
        byte[] octets = new byte[length];
        for (int i = 0; i < length; i++) {
            octets[i] = TransferPattern.octet(op, SIZE, at + i);
        }
        return octets;
    }

    /** RFC 5044 §6: ULPDU_Length, ULPDU, pad to 4, CRC32c (little-endian on the wire, as MPA sends it). */
    private static byte[] fpdu(byte[] header, byte[] payload, boolean badCrc) {
        int ulpduLength = header.length + payload.length;
        int pad = -(2 + ulpduLength) & 3;
        ByteBuffer fpdu = ByteBuffer.allocate(2 + ulpduLength + pad + 4);
        fpdu.putShort((short) ulpduLength).put(header).put(payload).put(new byte[pad]);
        CRC32C crc = new CRC32C();
        crc.update(fpdu.array(), 0, fpdu.position());
        int value = (int) crc.getValue();
        if (badCrc) {
            value ^= 0x01000000;
        }
        fpdu.order(ByteOrder.LITTLE_ENDIAN).putInt(value);
        return fpdu.array();
    }
}
