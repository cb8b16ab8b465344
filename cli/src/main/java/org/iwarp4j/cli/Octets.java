package org.iwarp4j.cli;

import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Sizes on every command line: octets, or with a K, M or G suffix (KiB, MiB, GiB; either case), as
 * perftest and nfs bench take them: {@code 4096}, {@code 64K}, {@code 1M}, {@code 2G}.
 */
public final class Octets implements ITypeConverter<Long> {

    /** The rule, as the error line gives it after the option and the value. */
    static final String RULE = "not a size: give octets, or a number with K, M or G (e.g. 4096, 64K, 1M, 2G)";

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /** {@code value} in octets; {@link TypeConversionException} with {@link #RULE} if it is none. */
    public static long parse(String value) {
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
                throw new TypeConversionException(RULE);
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException(RULE);
        }
    }

    /** The same for {@code int} options (message sizes): at most 2^31 - 1 octets. */
    public static final class Int implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long n = parse(value);
            if (n > Integer.MAX_VALUE) {
                throw new TypeConversionException("too large: at most 2G - 1 octets");
            }
            return (int) n;
        }
    }
}
