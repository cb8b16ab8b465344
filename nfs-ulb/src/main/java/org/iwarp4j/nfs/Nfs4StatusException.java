package org.iwarp4j.nfs;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v4.Nfs4Constants;

/**
 * An NFSv4 operation answered with an error (RFC 8881 §15), e.g. NFS4ERR_NOENT from LOOKUP. The
 * message names the operation and the error; {@link #nfs4Status()} is the nfsstat4 value. As an
 * {@link NfsStatusException} its {@link #status()} is the nfsstat3 of the same value where NFSv3
 * has one (RFC 8881 kept the NFSv3 numbers for the errors both have: NOENT, ACCES, EXIST, NOTDIR,
 * ISDIR, NOSPC, STALE, ...), else NFS3ERR_IO, so callers written for NFSv3 keep working.
 */
public final class Nfs4StatusException extends NfsStatusException {

    private static final long serialVersionUID = 1L;
    private static final Map<Integer, String> NAMES = names();

    private final int nfs4Status;
    private final String operation;

    public Nfs4StatusException(int nfs4Status, String operation) {
        super(nearestV3(nfs4Status), operation + ": " + name(nfs4Status), true);
        this.nfs4Status = nfs4Status;
        this.operation = operation;
    }

    /** The nfsstat4 the server returned. */
    public int nfs4Status() {
        return nfs4Status;
    }

    /** The operation (and its argument, if any) that failed, e.g. {@code LOOKUP missing}. */
    public String operation() {
        return operation;
    }

    /** The RFC's name of an nfsstat4, e.g. {@code NFS4ERR_NOENT}, or {@code nfsstat4 N} for an unknown value. */
    public static String name(int nfs4Status) {
        return NAMES.getOrDefault(nfs4Status, "nfsstat4 " + nfs4Status);
    }

    private static Nfs3Status nearestV3(int status) {
        for (Nfs3Status s : Nfs3Status.values()) {
            if (s.value() == status && status != 0) {
                return s;
            }
        }
        return Nfs3Status.NFS3ERR_IO;
    }

    private static Map<Integer, String> names() {
        Map<Integer, String> names = new HashMap<>();
        for (Field f : Nfs4Constants.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class
                    && (f.getName().startsWith("NFS4ERR_") || f.getName().equals("NFS4_OK"))) {
                try {
                    names.putIfAbsent(f.getInt(null), f.getName());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return Map.copyOf(names);
    }
}
