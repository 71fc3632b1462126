package org.fdbresolver.harness.cli;

import java.math.BigInteger;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** A count of things ({@code --batches}, {@code --warmup}): a whole number from 0; {@code _} may group digits. */
final class CountConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String text) {
        String s = text.trim().replace("_", "");
        if (!s.matches("-?\\d+")) {
            throw new TypeConversionException("'" + text + "' is not a whole number");
        }
        BigInteger n = new BigInteger(s);
        if (n.signum() < 0) {
            throw new TypeConversionException("'" + text + "' is negative: wanted 0 or more");
        }
        if (n.bitLength() > 63) {
            throw new TypeConversionException("'" + text + "' is too large: at most " + Long.MAX_VALUE);
        }
        return n.longValueExact();
    }
}
