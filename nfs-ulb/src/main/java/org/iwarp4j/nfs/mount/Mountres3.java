package org.iwarp4j.nfs.mount;

import java.util.List;
import java.util.Objects;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * mountres3 (RFC 1813 Appendix I §5.2.1), the result of MNT: the export's root file handle and
 * the RPC authentication flavors the server accepts for it.
 */
public record Mountres3(MountStat3 status, NfsFh3 fhandle, List<Integer> authFlavors) {

    public Mountres3 {
        Objects.requireNonNull(status, "status");
        authFlavors = List.copyOf(authFlavors);
        if (status == MountStat3.MNT3_OK) {
            Objects.requireNonNull(fhandle, "fhandle");
        }
    }

    public static Mountres3 fail(MountStat3 status) {
        return new Mountres3(status, null, List.of());
    }

    public static Mountres3 decode(XdrDecoder in) {
        MountStat3 status = MountStat3.of(in.readEnum());
        if (status != MountStat3.MNT3_OK) {
            return fail(status);
        }
        NfsFh3 fh = NfsFh3.decode(in);
        List<Integer> flavors = in.readArray(MountConstants.MAX_DECODED_LIST, XdrDecoder::readInt);
        return new Mountres3(status, fh, flavors);
    }

    public void encode(XdrEncoder out) {
        out.writeEnum(status.value());
        if (status == MountStat3.MNT3_OK) {
            fhandle.encode(out);
            out.writeArray(authFlavors, MountConstants.MAX_DECODED_LIST, XdrEncoder::writeInt);
        }
    }
}
