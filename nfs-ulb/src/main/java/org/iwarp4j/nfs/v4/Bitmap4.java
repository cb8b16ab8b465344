package org.iwarp4j.nfs.v4;

import java.util.Arrays;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * bitmap4 (RFC 8881 §3.3.11): a variable-length array of 32-bit words, bit {@code n} in word
 * {@code n / 32} at position {@code n % 32}. Immutable; encodes without trailing zero words.
 */
public final class Bitmap4 {

    /** The most words decoded: attribute numbers end below 96 in NFSv4.2; a longer array is refused. */
    public static final int MAX_WORDS = 8;

    public static final Bitmap4 EMPTY = new Bitmap4(new int[0]);

    private final int[] words;

    private Bitmap4(int[] words) {
        int n = words.length;
        while (n > 0 && words[n - 1] == 0) {
            n--;
        }
        this.words = Arrays.copyOf(words, n);
    }

    /** A bitmap with these bits set. */
    public static Bitmap4 of(int... bits) {
        int max = -1;
        for (int b : bits) {
            if (b < 0 || b >= MAX_WORDS * 32) {
                throw new IllegalArgumentException("bit " + b);
            }
            max = Math.max(max, b);
        }
        int[] w = new int[max / 32 + 1];
        for (int b : bits) {
            w[b / 32] |= 1 << (b % 32);
        }
        return new Bitmap4(w);
    }

    /** A bitmap of these words (copied). */
    public static Bitmap4 ofWords(int... words) {
        return new Bitmap4(words.clone());
    }

    public boolean isSet(int bit) {
        return bit >= 0 && bit / 32 < words.length && (words[bit / 32] & (1 << (bit % 32))) != 0;
    }

    public boolean isEmpty() {
        return words.length == 0;
    }

    /** The bits set in both. */
    public Bitmap4 and(Bitmap4 other) {
        int[] w = new int[Math.min(words.length, other.words.length)];
        for (int i = 0; i < w.length; i++) {
            w[i] = words[i] & other.words[i];
        }
        return new Bitmap4(w);
    }

    /** The bits set here but not in {@code other}. */
    public Bitmap4 andNot(Bitmap4 other) {
        int[] w = words.clone();
        for (int i = 0; i < Math.min(w.length, other.words.length); i++) {
            w[i] &= ~other.words[i];
        }
        return new Bitmap4(w);
    }

    /** The bits set, ascending. */
    public int[] bits() {
        return java.util.stream.IntStream.range(0, words.length * 32).filter(this::isSet).toArray();
    }

    public int[] words() {
        return words.clone();
    }

    public static Bitmap4 decode(XdrDecoder in) {
        long n = in.readUnsignedInt();
        if (n > MAX_WORDS) {
            throw new XdrException("bitmap4 of " + n + " words");
        }
        int[] w = new int[(int) n];
        for (int i = 0; i < w.length; i++) {
            w[i] = in.readInt();
        }
        return new Bitmap4(w);
    }

    public void encode(XdrEncoder out) {
        out.writeUnsignedInt(words.length);
        for (int w : words) {
            out.writeInt(w);
        }
    }

    /** Octets {@link #encode} writes. */
    public int encodedLength() {
        return 4 + 4 * words.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bitmap4 b && Arrays.equals(words, b.words);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "Bitmap4" + Arrays.toString(bits());
    }
}
