package org.fdbresolver.harness.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** One subcommand: its options, its help text and what it does. */
abstract class Command {
    static final Option HELP = Option.flag("help", "show this help and exit");
    static final Option VERBOSE = Option.flag("verbose", "print a stack trace with an error");

    /** The word that selects it: {@code fdbresolver NAME ...}. */
    abstract String name();

    /** One line for the command list. */
    abstract String summary();

    /** The usage line after {@code fdbresolver}, e.g. {@code "resolve TRACE --engine NAME [options]"}. */
    abstract String synopsis();

    /** Its own options (help and verbose are added to every command). */
    abstract List<Option> options();

    /** How many positional arguments it takes, and what they are called (for the error message). */
    abstract int minPositionals();

    abstract int maxPositionals();

    /** Extra help after the options: engines, workloads, what it prints. */
    String details() {
        return "";
    }

    /** Whether options it does not know are passed on (gen passes them to the workload). */
    boolean passesUnknownOptions() {
        return false;
    }

    /** Runs the command and returns the exit code. */
    abstract int run(Args args, CommandContext context) throws Exception;

    final List<Option> allOptions() {
        List<Option> all = new ArrayList<>(options());
        all.add(VERBOSE);
        all.add(HELP);
        return all;
    }

    final Set<String> flagNames() {
        Set<String> flags = new HashSet<>();
        for (Option o : allOptions()) {
            if (o.isFlag()) {
                flags.add(o.name());
            }
        }
        return flags;
    }

    /** Refuses unknown options and a wrong number of positional arguments. */
    final void check(Args args) {
        if (!passesUnknownOptions()) {
            Set<String> known = new HashSet<>();
            allOptions().forEach(o -> known.add(o.name()));
            for (String name : args.optionNames()) {
                if (!known.contains(name)) {
                    throw new UsageException("unknown option --" + name + " for " + name() + " (see fdbresolver "
                            + name() + " --help)");
                }
            }
        }
        int n = args.positionals().size();
        if (n < minPositionals()) {
            throw new UsageException("usage: fdbresolver " + synopsis() + " (see fdbresolver " + name() + " --help)");
        }
        if (n > maxPositionals()) {
            throw new UsageException("unexpected argument '" + args.positionals().get(maxPositionals()) + "' for "
                    + name() + " (see fdbresolver " + name() + " --help)");
        }
    }

    final String help() {
        StringBuilder sb = new StringBuilder();
        sb.append("usage: fdbresolver ").append(synopsis()).append("\n\n").append(summary()).append("\n\noptions:\n");
        int width = 0;
        for (Option o : allOptions()) {
            width = Math.max(width, label(o).length());
        }
        for (Option o : allOptions()) {
            sb.append("  ").append(String.format("%-" + width + "s", label(o))).append("  ").append(o.description()).append('\n');
        }
        String details = details();
        if (!details.isEmpty()) {
            sb.append('\n').append(details);
            if (!details.endsWith("\n")) {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String label(Option o) {
        return "--" + o.name() + (o.isFlag() ? "" : " " + o.valueName());
    }
}
