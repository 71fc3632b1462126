package org.fdbresolver.harness.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code retention --budget 16m,64m}: byte counts separated by commas ({@link SizeConverter} reads each), each
 * budget once. A budget named twice is refused in the words it was typed, since {@code 8m} and {@code 8388608}
 * are the same budget.
 *
 * @param bytes the budgets in the order given
 */
record BudgetList(List<Long> bytes) {

    static final class Converter implements ITypeConverter<BudgetList> {
        @Override
        public BudgetList convert(String text) {
            List<Long> bytes = new ArrayList<>();
            Map<Long, String> typed = new HashMap<>();
            for (String part : text.split(",", -1)) {
                if (part.isBlank()) {
                    throw new TypeConversionException("'" + text + "' has an empty item: wanted BYTES[,BYTES...] such as 16m,64m");
                }
                long b = SizeConverter.parse(part);
                String earlier = typed.putIfAbsent(b, part.trim());
                if (earlier != null) {
                    throw new TypeConversionException("'" + text + "' names " + (earlier.equals(part.trim()) ? earlier
                            : RetentionCommand.label(b) + " twice (" + earlier + " and " + part.trim() + ")")
                            + (earlier.equals(part.trim()) ? " twice" : "") + ": each budget is replayed once");
                }
                bytes.add(b);
            }
            return new BudgetList(List.copyOf(bytes));
        }
    }
}
