package org.iwarp4j.nfs.binding;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How an NFSv4 server pairs the client's Write chunks with the DDP-eligible results of a COMPOUND
 * (RFC 8267 §6.4.1, applying RFC 8166 §4.3.2): the k-th READ operation (an operation with an
 * eligible result: READ, READLINK) uses the k-th Write chunk; an empty chunk (segment count 0)
 * forces that operation's results inline; READ operations beyond the Write list return inline.
 *
 * <p>Example (§6.4.3): Write list A, B, C with {@code PUTFH LOOKUP READ PUTFH LOOKUP READLINK
 * PUTFH LOOKUP READ}: the first READ uses A, READLINK uses B, the second READ uses C.
 */
public final class WriteChunkPairing {

    private WriteChunkPairing() {
    }

    /**
     * One Write chunk as the client provided it.
     *
     * @param segmentCount its RDMA segments; 0 makes it an "empty Write chunk" (RFC 8166 §3.4.6)
     * @param length the sum of its segment lengths
     */
    public record WriteChunk(int segmentCount, long length) {
        public WriteChunk {
            if (segmentCount < 0 || length < 0 || (segmentCount == 0 && length != 0)) {
                throw new IllegalArgumentException("segments " + segmentCount + ", length " + length);
            }
        }

        /** An empty Write chunk: the client wants the matching result inline. */
        public static WriteChunk empty() {
            return new WriteChunk(0, 0);
        }

        public boolean isEmpty() {
            return segmentCount == 0;
        }
    }

    /** Where one operation's DDP-eligible result goes. */
    public enum Disposition {
        /** The operation has no DDP-eligible result. */
        NOT_A_READ_OPERATION,
        /** The Write list is empty: every eligible result inline. */
        INLINE_EMPTY_WRITE_LIST,
        /** More READ operations than Write chunks: this one returns inline. */
        INLINE_NO_MATCHING_CHUNK,
        /** The matching chunk is empty: results inline, the empty chunk echoed in its position. */
        INLINE_EMPTY_CHUNK,
        /** The matching chunk is non-empty: the eligible item MUST go into it. */
        WRITE_CHUNK
    }

    /**
     * What the server returns in a non-empty matching chunk's Write list position when the
     * operation's result arm has no eligible item (an error): RFC 8267 §6.4.1 says an empty Write
     * chunk, RFC 8166 §4.3.2.2 an unused one (same segment count, all lengths 0). The two RFCs
     * disagree; a client accepts both, a server picks one.
     */
    public enum ConsumedNothing {
        /** RFC 8267 §6.4.1: segment count 0 in that position. */
        EMPTY_CHUNK,
        /** RFC 8166 §4.3.2.2: the client's segment count, every segment length 0. */
        UNUSED_CHUNK
    }

    /** What a server puts where, for one operation, once its result is known. */
    public enum Placement {
        /** Not a READ operation: nothing to place. */
        NONE,
        /** The eligible item inline in the Payload stream. */
        INLINE,
        /** The eligible item pushed into the chunk by RDMA Write; only its length stays inline. */
        IN_WRITE_CHUNK,
        /** Nothing eligible to place; the chunk position returns as an empty Write chunk. */
        EMPTY_CHUNK_RETURNED,
        /** Nothing eligible to place; the chunk position returns as an unused Write chunk. */
        UNUSED_CHUNK_RETURNED
    }

    /**
     * The pairing of one operation.
     *
     * @param operationIndex its index in the COMPOUND
     * @param opcode its opcode
     * @param disposition where its eligible result goes
     * @param writeChunkIndex the index of its Write chunk, when it has one
     */
    public record Pairing(int operationIndex, int opcode, Disposition disposition, OptionalInt writeChunkIndex) {
        public Pairing {
            Objects.requireNonNull(disposition, "disposition");
            Objects.requireNonNull(writeChunkIndex, "writeChunkIndex");
        }

        /**
         * Where the result goes once the server knows whether its arm carries the eligible item
         * (READ4resok, READLINK4resok) or not (an error arm).
         */
        public Placement placement(boolean resultHasEligibleItem, ConsumedNothing form) {
            return switch (disposition) {
                case NOT_A_READ_OPERATION -> Placement.NONE;
                case INLINE_EMPTY_WRITE_LIST, INLINE_NO_MATCHING_CHUNK, INLINE_EMPTY_CHUNK -> Placement.INLINE;
                case WRITE_CHUNK -> resultHasEligibleItem ? Placement.IN_WRITE_CHUNK
                        : form == ConsumedNothing.EMPTY_CHUNK ? Placement.EMPTY_CHUNK_RETURNED
                        : Placement.UNUSED_CHUNK_RETURNED;
            };
        }
    }

    /**
     * Pairs every operation of a COMPOUND with the Write list (§6.4.1).
     *
     * @param opcodes the COMPOUND's operations in order
     * @param writeList the client's Write list in order
     * @return one pairing per operation, in order
     */
    public static List<Pairing> pair(List<Integer> opcodes, List<WriteChunk> writeList) {
        List<Pairing> pairings = new ArrayList<>(opcodes.size());
        int next = 0;
        for (int i = 0; i < opcodes.size(); i++) {
            int opcode = opcodes.get(i);
            boolean read = Nfs4Binding.operation(opcode).map(Nfs4OperationBinding::isReadOperation).orElse(false);
            if (!read) {
                pairings.add(new Pairing(i, opcode, Disposition.NOT_A_READ_OPERATION, OptionalInt.empty()));
            } else if (writeList.isEmpty()) {
                pairings.add(new Pairing(i, opcode, Disposition.INLINE_EMPTY_WRITE_LIST, OptionalInt.empty()));
            } else if (next >= writeList.size()) {
                pairings.add(new Pairing(i, opcode, Disposition.INLINE_NO_MATCHING_CHUNK, OptionalInt.empty()));
            } else {
                int chunk = next++;
                Disposition d = writeList.get(chunk).isEmpty() ? Disposition.INLINE_EMPTY_CHUNK : Disposition.WRITE_CHUNK;
                pairings.add(new Pairing(i, opcode, d, OptionalInt.of(chunk)));
            }
        }
        return Collections.unmodifiableList(pairings);
    }
}
