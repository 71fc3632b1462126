package org.fdbresolver.harness.cli;

import java.util.Map;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;

/** The options that choose and configure an engine, shared by resolve, bench and demo. */
final class EngineOptions {
    static final Option ENGINE = Option.value("engine", "NAME", "the engine that decides (see engines below)");
    static final Option BUDGET = Option.value("budget", "BYTES",
            "history memory budget: a byte count or 512m, 2g, ... (default 1g)");
    static final Option ENGINE_OPTION = Option.value("engine-option", "NAME=VALUE",
            "an engine-specific setting, repeatable (see docs/configuration.md)");

    /** The engine the demo prefers to show off. */
    static final String PREFERRED = "tree";
    static final String REFERENCE = "reference";

    private EngineOptions() {
    }

    static ConflictSetConfig config(Args args, String engine) {
        ConflictSetConfig.Builder b = ConflictSetConfig.builder()
                .engine(engine)
                .memoryBudgetBytes(args.bytesValue(BUDGET.name(), ConflictSetConfig.DEFAULT_MEMORY_BUDGET_BYTES));
        for (String setting : args.values(ENGINE_OPTION.name())) {
            int eq = setting.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--engine-option wants NAME=VALUE, not '" + setting + "'");
            }
            b.option(setting.substring(0, eq), setting.substring(eq + 1));
        }
        return b.build();
    }

    /** Opens a conflict set; an unknown engine or a bad setting is a usage error. */
    static ConflictSet open(ConflictSetConfig config) {
        if (!Engines.all().containsKey(config.engine())) {
            throw new UsageException("unknown engine '" + config.engine() + "' (engines: " + known() + ")");
        }
        try {
            return ConflictSet.open(config);
        } catch (IllegalArgumentException e) {
            throw new UsageException("engine " + config.engine() + ": " + e.getMessage(), e);
        }
    }

    /** {@code tree} if registered, else the first engine that is not the reference, else the reference. */
    static String best() {
        Map<String, EngineFactory> all = Engines.all();
        if (all.containsKey(PREFERRED)) {
            return PREFERRED;
        }
        for (String name : all.keySet()) {
            if (!name.equals(REFERENCE)) {
                return name;
            }
        }
        return REFERENCE;
    }

    static String known() {
        Map<String, EngineFactory> all = Engines.all();
        return all.isEmpty() ? "none registered" : String.join(", ", all.keySet());
    }

    /** The engine list for --help, read from the registry at run time. */
    static String listing() {
        Map<String, EngineFactory> all = Engines.all();
        if (all.isEmpty()) {
            return "engines: none registered on the class path\n";
        }
        StringBuilder sb = new StringBuilder("engines:\n");
        int width = all.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (EngineFactory f : all.values()) {
            sb.append("  ").append(String.format("%-" + width + "s", f.name())).append("  ").append(f.description()).append('\n');
        }
        return sb.toString();
    }
}
