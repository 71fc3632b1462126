package org.fdbresolver.api;

/** The resolver's verdict on one transaction; {@link #code()} is the byte stored in decision files. */
public enum Decision {
    /** No conflict: the transaction's writes enter the history at the batch's version. */
    COMMIT((byte) 0),
    /** A read range overlaps a newer write, from history or from an earlier transaction of the batch. */
    CONFLICT((byte) 1),
    /** The transaction reads at a snapshot older than the oldest version the resolver can check. */
    TOO_OLD((byte) 2);

    public static final byte COMMIT_CODE = 0;
    public static final byte CONFLICT_CODE = 1;
    public static final byte TOO_OLD_CODE = 2;

    private static final Decision[] BY_CODE = values();

    private final byte code;

    Decision(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    public static Decision ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("not a decision code: " + code);
        }
        return BY_CODE[code];
    }
}
