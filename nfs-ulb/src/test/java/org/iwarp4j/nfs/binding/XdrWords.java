package org.iwarp4j.nfs.binding;

import java.util.Arrays;

/** Test helper: a size written as a sum of XDR words ("1 + 21 + 2*4"), in octets. */
final class XdrWords {

    private XdrWords() {
    }

    static int octets(String sum) {
        return 4 * Arrays.stream(sum.split("\\+")).map(String::trim).mapToInt(term -> {
            String[] factors = term.split("\\*");
            int product = 1;
            for (String f : factors) {
                product *= Integer.parseInt(f.trim());
            }
            return product;
        }).sum();
    }
}
