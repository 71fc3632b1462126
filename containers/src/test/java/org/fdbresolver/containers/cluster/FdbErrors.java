package org.fdbresolver.containers.cluster;

import com.apple.foundationdb.FDBException;
import java.util.concurrent.CompletionException;

/** FoundationDB's error codes the cluster tests count, and the code a client call failed with. */
final class FdbErrors {
    static final int TRANSACTION_TOO_OLD = 1007;
    static final int NOT_COMMITTED = 1020;
    static final int COMMIT_UNKNOWN_RESULT = 1021;

    private FdbErrors() {
    }

    /**
     * The FoundationDB error {@code e} carries: itself, or the cause fdb-java's futures wrap it in
     * ({@code CompletionException}); null when it is not one.
     */
    static FDBException of(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof FDBException f ? f : null;
    }

    /** The code of the FoundationDB error {@code e} carries, or -1. */
    static int code(Throwable e) {
        FDBException f = of(e);
        return f == null ? -1 : f.getCode();
    }
}
