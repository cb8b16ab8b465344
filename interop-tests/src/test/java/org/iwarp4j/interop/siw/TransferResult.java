package org.iwarp4j.interop.siw;

/**
 * How one transfer of the rendezvous went: its op and size, who checked the data ({@code actor}
 * for a Read, {@code target} for a Write or Send) and the RESULT status (0 = verified, else 1 +
 * the first wrong octet's offset). {@link #toString()} reads as iwarp_peer's result line.
 */
record TransferResult(Rendezvous.Op op, int size, int status, String checkedBy) {

    boolean verified() {
        return status == 0;
    }

    @Override
    public String toString() {
        return "result op=" + op.option() + " size=" + size + " status="
                + (status == 0 ? "ok" : "mismatch@" + Integer.toUnsignedString(status - 1)) + " by=" + checkedBy;
    }
}
