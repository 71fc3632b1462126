package org.fdbresolver.api;

/**
 * A batch broke one of the validity rules (versions, ranges, key sizes). The batch was rejected whole,
 * before any state changed: the conflict set is exactly as it was before the call.
 */
public final class InvalidBatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidBatchException(String message) {
        super(message);
    }
}
