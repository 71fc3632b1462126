package org.fdbresolver.harness.trace;

import org.fdbresolver.api.ConflictBatch;
import org.fdbresolver.trace.v1.Batch;
import org.fdbresolver.trace.v1.KeyRange;
import org.fdbresolver.trace.v1.Transaction;

/**
 * Decodes a {@code Batch} message's wire bytes straight into a {@link ConflictBatch}: keys are copied from the
 * message buffer into the batch, and no protobuf object is made, so reading a trace costs a fraction of
 * {@code Batch.parseFrom} and allocates nothing.
 *
 * <p>It follows protobuf's decoding rules for this schema: fields in any order, the last value of a scalar
 * field wins, a known field number with an unexpected wire type is an unknown field, unknown fields are
 * skipped. Anything it does not handle (groups, malformed framing) makes {@link #decode} return {@code false},
 * and the caller parses the message with protobuf instead, which either succeeds or gives the precise error.
 * {@code BatchWireDecoderTest} checks it against protobuf on every golden trace and on crafted encodings.
 */
final class BatchWireDecoder {
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH_DELIMITED = 2;
    private static final int FIXED32 = 5;

    private static final int BATCH_VERSION = Batch.VERSION_FIELD_NUMBER;
    private static final int BATCH_NEW_OLDEST = Batch.NEW_OLDEST_VERSION_FIELD_NUMBER;
    private static final int BATCH_TRANSACTIONS = Batch.TRANSACTIONS_FIELD_NUMBER;
    private static final int TX_READ_SNAPSHOT = Transaction.READ_SNAPSHOT_FIELD_NUMBER;
    private static final int TX_READS = Transaction.READS_FIELD_NUMBER;
    private static final int TX_WRITES = Transaction.WRITES_FIELD_NUMBER;
    private static final int TX_REPORT = Transaction.REPORT_CONFLICTING_KEYS_FIELD_NUMBER;
    private static final int RANGE_BEGIN = KeyRange.BEGIN_FIELD_NUMBER;
    private static final int RANGE_END = KeyRange.END_FIELD_NUMBER;

    /** Thrown to abandon the fast path; carries no stack trace (it is control flow, not an error). */
    private static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Unsupported INSTANCE = new Unsupported();

        private Unsupported() {
            super(null, null, false, false);
        }
    }

    private byte[] buf;
    private int pos;

    private long version;
    private long newOldestVersion;

    // A KeyRange's ends, set by readRange.
    private int beginOff;
    private int beginLen;
    private int endOff;
    private int endLen;

    /**
     * Decodes {@code buf[0, len)} into {@code target} (cleared first).
     *
     * @return false when the message needs protobuf's own parser (target then holds a partial batch)
     */
    boolean decode(byte[] buf, int len, ConflictBatch target) {
        this.buf = buf;
        this.pos = 0;
        version = 0;
        newOldestVersion = 0;
        target.clear();
        try {
            while (pos < len) {
                long tag = varint(len);
                int field = fieldOf(tag);
                int wireType = (int) tag & 7;
                if (field == BATCH_VERSION && wireType == VARINT) {
                    version = varint(len);
                } else if (field == BATCH_NEW_OLDEST && wireType == VARINT) {
                    newOldestVersion = varint(len);
                } else if (field == BATCH_TRANSACTIONS && wireType == LENGTH_DELIMITED) {
                    int end = lengthEnd(len);
                    transaction(end, target);
                    pos = end;
                } else {
                    skip(wireType, len);
                }
            }
            return true;
        } catch (Unsupported e) {
            return false;
        } finally {
            this.buf = null;
        }
    }

    long version() {
        return version;
    }

    long newOldestVersion() {
        return newOldestVersion;
    }

    /** A Transaction in {@code [pos, end)}: first its scalars (they may follow the ranges), then its ranges. */
    private void transaction(int end, ConflictBatch target) {
        int start = pos;
        long snapshot = 0;
        boolean report = false;
        while (pos < end) {
            long tag = varint(end);
            int field = fieldOf(tag);
            int wireType = (int) tag & 7;
            if (field == TX_READ_SNAPSHOT && wireType == VARINT) {
                snapshot = varint(end);
            } else if (field == TX_REPORT && wireType == VARINT) {
                report = varint(end) != 0;
            } else {
                skip(wireType, end);
            }
        }
        target.addTransaction(snapshot, report);
        pos = start;
        while (pos < end) {
            long tag = varint(end);
            int field = fieldOf(tag);
            int wireType = (int) tag & 7;
            if ((field == TX_READS || field == TX_WRITES) && wireType == LENGTH_DELIMITED) {
                int rangeEnd = lengthEnd(end);
                readRange(rangeEnd);
                if (field == TX_READS) {
                    target.addRead(buf, beginOff, beginLen, buf, endOff, endLen);
                } else {
                    target.addWrite(buf, beginOff, beginLen, buf, endOff, endLen);
                }
                pos = rangeEnd;
            } else {
                skip(wireType, end);
            }
        }
    }

    private void readRange(int end) {
        beginOff = 0;
        beginLen = 0;
        endOff = 0;
        endLen = 0;
        while (pos < end) {
            long tag = varint(end);
            int field = fieldOf(tag);
            int wireType = (int) tag & 7;
            if ((field == RANGE_BEGIN || field == RANGE_END) && wireType == LENGTH_DELIMITED) {
                int valueEnd = lengthEnd(end);
                if (field == RANGE_BEGIN) {
                    beginOff = pos;
                    beginLen = valueEnd - pos;
                } else {
                    endOff = pos;
                    endLen = valueEnd - pos;
                }
                pos = valueEnd;
            } else {
                skip(wireType, end);
            }
        }
    }

    private static int fieldOf(long tag) {
        long field = tag >>> 3;
        if (field == 0 || field > 0x1FFF_FFFF || tag > 0xFFFF_FFFFL) {
            throw Unsupported.INSTANCE;
        }
        return (int) field;
    }

    /** Reads a length prefix and returns where the value ends, within {@code limit}. */
    private int lengthEnd(int limit) {
        long length = varint(limit);
        if (length < 0 || length > limit - pos) {
            throw Unsupported.INSTANCE;
        }
        return pos + (int) length;
    }

    private void skip(int wireType, int limit) {
        switch (wireType) {
            case VARINT -> varint(limit);
            case FIXED64 -> advance(8, limit);
            case LENGTH_DELIMITED -> pos = lengthEnd(limit);
            case FIXED32 -> advance(4, limit);
            default -> throw Unsupported.INSTANCE; // groups and invalid wire types: protobuf decides
        }
    }

    private void advance(int n, int limit) {
        if (limit - pos < n) {
            throw Unsupported.INSTANCE;
        }
        pos += n;
    }

    private long varint(int limit) {
        final byte[] b = buf;
        int p = pos;
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                throw Unsupported.INSTANCE;
            }
            byte x = b[p++];
            value |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                pos = p;
                return value;
            }
        }
        throw Unsupported.INSTANCE; // over 10 bytes
    }
}
