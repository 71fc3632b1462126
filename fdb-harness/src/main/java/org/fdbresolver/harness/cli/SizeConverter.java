package org.fdbresolver.harness.cli;

import java.math.BigInteger;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The one parser of byte counts on the command line ({@code --budget} and every size option to come): a whole
 * number of bytes, optionally with a binary suffix: {@code k}, {@code m}, {@code g}, {@code t}, also written
 * {@code KiB}, {@code MB}, {@code gb}, ... (case does not matter; every suffix is a power of 1024); {@code _}
 * may group digits. Zero, negative, fractional and values beyond {@link Long#MAX_VALUE} bytes are refused
 * with a message picocli prefixes with the option's name.
 */
final class SizeConverter implements ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(?:([kmgt])(?:i?b)?|b)?");
    private static final String EXAMPLES = "a byte count such as 1073741824, 512m, 2g or 64KiB";

    @Override
    public Long convert(String text) {
        return parse(text);
    }

    static long parse(String text) {
        String s = text.trim().replace("_", "").toLowerCase(Locale.ROOT);
        Matcher m = SIZE.matcher(s);
        if (!m.matches()) {
            throw new TypeConversionException(s.startsWith("-")
                    ? "'" + text + "' is negative: wanted " + EXAMPLES
                    : "'" + text + "' is not " + EXAMPLES);
        }
        int shift = m.group(2) == null ? 0 : switch (m.group(2).charAt(0)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 40;
        };
        BigInteger bytes = new BigInteger(m.group(1)).shiftLeft(shift);
        if (bytes.signum() == 0) {
            throw new TypeConversionException("'" + text + "' is zero: wanted at least 1 byte");
        }
        if (bytes.bitLength() > 63) {
            throw new TypeConversionException("'" + text + "' is too large: at most " + Long.MAX_VALUE + " bytes (8 EiB)");
        }
        return bytes.longValueExact();
    }
}
