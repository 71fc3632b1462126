package org.fdbresolver.harness.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A generator seed: a whole number from 0 to 18446744073709551615, because the trace header stores it as an
 * unsigned 64-bit integer ({@code TraceHeader.seed}, uint64). Negative seeds are refused rather than wrapped,
 * so the seed printed and recorded is always the one given. The value comes back as the {@code long} with
 * the same 64 bits ({@link Long#toUnsignedString} prints it).
 */
final class SeedConverter implements ITypeConverter<Long> {
    static final String RANGE = "0 to 18446744073709551615";

    @Override
    public Long convert(String text) {
        String s = text.trim().replace("_", "");
        if (s.startsWith("-") && s.length() > 1) {
            throw new TypeConversionException("'" + text + "' is negative: a seed is " + RANGE);
        }
        if (!s.matches("\\d+")) {
            throw new TypeConversionException("'" + text + "' is not a seed: a whole number " + RANGE);
        }
        try {
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is too large: a seed is " + RANGE);
        }
    }
}
