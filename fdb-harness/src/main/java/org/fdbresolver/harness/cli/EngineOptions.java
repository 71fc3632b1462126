package org.fdbresolver.harness.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;
import picocli.CommandLine.Option;

/** The options that choose and configure an engine, shared by resolve, bench and demo (a picocli mixin). */
final class EngineOptions {
    static final String REFERENCE = "reference";

    @Option(names = "--engine", paramLabel = "NAME", order = 10, defaultValue = ConflictSetConfig.DEFAULT_ENGINE,
            description = "the engine that decides (default ${DEFAULT-VALUE}; engines are listed below)")
    String engine;

    /** Null when not given: the default budget, and no error for an engine that has none. */
    @Option(names = "--budget", paramLabel = "BYTES", order = 11, converter = SizeConverter.class,
            description = "history memory budget: a byte count or 512m, 2g, 64KiB, ... (default 1g; "
                    + "not for an engine without one, such as reference)")
    Long budgetBytes;

    @Option(names = "--engine-option", paramLabel = "NAME=VALUE", order = 12,
            description = "an engine-specific setting, repeatable (see docs/configuration.md)")
    Map<String, String> settings = new LinkedHashMap<>();

    /** The budget given, else the default (1 GiB). */
    long budget() {
        return budgetBytes != null ? budgetBytes : ConflictSetConfig.DEFAULT_MEMORY_BUDGET_BYTES;
    }

    /** The chosen engine with the budget and settings given; a budget given for an engine without one is refused. */
    ConflictSetConfig config() {
        if (budgetBytes != null) {
            requireBudgetEngine(engine, "--budget does not apply to it (drop --budget, or use --engine "
                    + ConflictSetConfig.DEFAULT_ENGINE + ")");
        }
        ConflictSetConfig.Builder b = ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(budget());
        settings.forEach(b::option);
        return b.build();
    }

    /**
     * Refuses an engine that keeps all history whatever the budget (the reference): a budget given for it would
     * silently do nothing. An engine not registered is left to {@link #open}, which names the known ones.
     */
    static void requireBudgetEngine(String engine, String consequence) {
        EngineFactory factory = Engines.all().get(engine);
        if (factory != null && !factory.honoursMemoryBudget()) {
            throw new UsageException("engine " + engine + " keeps all history and has no memory budget: " + consequence);
        }
    }

    /**
     * Opens a conflict set; an unknown engine or a setting the engine refuses is a usage error. Engines name
     * themselves in their messages ({@code engine tree: unknown option 'foo' ...}), so the message is kept as is.
     */
    static ConflictSet open(ConflictSetConfig config) {
        if (!Engines.all().containsKey(config.engine())) {
            throw new UsageException("unknown engine '" + config.engine() + "' (engines: " + known() + ")");
        }
        try {
            return ConflictSet.open(config);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
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
