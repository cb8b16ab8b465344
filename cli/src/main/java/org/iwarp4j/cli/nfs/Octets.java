package org.iwarp4j.cli.nfs;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Sizes on the command line: octets, or with a k, m or g suffix (KiB, MiB, GiB), e.g. {@code 64m}. */
final class Octets implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (v.endsWith("k") || v.endsWith("m") || v.endsWith("g")) {
            shift = switch (v.charAt(v.length() - 1)) {
                case 'k' -> 10;
                case 'm' -> 20;
                default -> 30;
            };
            v = v.substring(0, v.length() - 1);
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0 || n > (Long.MAX_VALUE >> shift)) {
                throw new TypeConversionException("a size of octets, e.g. 4096, 64k, 16m, 1g: " + value);
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("a size of octets, e.g. 4096, 64k, 16m, 1g: " + value);
        }
    }
}
