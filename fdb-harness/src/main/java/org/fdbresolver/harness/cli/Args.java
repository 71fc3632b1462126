package org.fdbresolver.harness.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed command line: positional arguments and {@code --name value} / {@code --name=value} options
 * (a name may repeat; flags take no value). {@code --} ends the options.
 */
final class Args {
    private final List<String> positionals;
    private final Map<String, List<String>> options;

    private Args(List<String> positionals, Map<String, List<String>> options) {
        this.positionals = positionals;
        this.options = options;
    }

    /**
     * @param flags option names that take no value; every other option takes one
     */
    static Args parse(List<String> tokens, Set<String> flags) {
        List<String> positionals = new ArrayList<>();
        Map<String, List<String>> options = new LinkedHashMap<>();
        boolean optionsEnded = false;
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            if (optionsEnded || !token.startsWith("-") || token.equals("-")) {
                positionals.add(token);
                continue;
            }
            if (token.equals("--")) {
                optionsEnded = true;
                continue;
            }
            if (token.equals("-h")) {
                token = "--help";
            }
            if (!token.startsWith("--") || token.length() == 2) {
                throw new UsageException("unknown option " + token + " (options are --name VALUE)");
            }
            String name = token.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
                if (flags.contains(name)) {
                    throw new UsageException("option --" + name + " takes no value");
                }
            } else if (flags.contains(name)) {
                value = "true";
            } else {
                if (i + 1 >= tokens.size()) {
                    throw new UsageException("option --" + name + " needs a value");
                }
                value = tokens.get(++i);
            }
            options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return new Args(positionals, options);
    }

    List<String> positionals() {
        return positionals;
    }

    Set<String> optionNames() {
        return options.keySet();
    }

    boolean has(String name) {
        return options.containsKey(name);
    }

    boolean flag(String name) {
        return options.containsKey(name);
    }

    /** The option's value (the last one if repeated), or {@code null}. */
    String value(String name) {
        List<String> v = options.get(name);
        return v == null ? null : v.getLast();
    }

    List<String> values(String name) {
        return options.getOrDefault(name, List.of());
    }

    String required(String name, String command) {
        String v = value(name);
        if (v == null) {
            throw new UsageException(command + " needs --" + name + " (see fdbresolver " + command + " --help)");
        }
        return v;
    }

    long longValue(String name, long fallback) {
        String v = value(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " wants a whole number, not '" + v + "'");
        }
    }

    long nonNegative(String name, long fallback) {
        long v = longValue(name, fallback);
        if (v < 0) {
            throw new UsageException("--" + name + " must not be negative: " + v);
        }
        return v;
    }

    /** A byte count: a number with an optional binary suffix k, m, g, t (also KiB, MB, ...; all powers of 1024). */
    long bytesValue(String name, long fallback) {
        String v = value(name);
        return v == null ? fallback : parseBytes("--" + name, v);
    }

    static long parseBytes(String what, String text) {
        String s = text.trim().toLowerCase(java.util.Locale.ROOT).replace("_", "");
        if (s.endsWith("ib")) {
            s = s.substring(0, s.length() - 2);
        } else if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        int shift = 0;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                case 't' -> shift = 40;
                default -> shift = 0;
            }
        }
        if (shift > 0) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long n = Long.parseLong(s);
            if (n <= 0) {
                throw new UsageException(what + " must be positive: '" + text + "'");
            }
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new UsageException(what + " is too large: '" + text + "'");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new UsageException(what + " wants a byte count such as 1073741824, 512m or 2g, not '" + text + "'");
        }
    }
}
