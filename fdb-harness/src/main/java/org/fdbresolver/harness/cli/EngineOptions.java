package org.fdbresolver.harness.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Stack;
import org.fdbresolver.api.ConflictSet;
import org.fdbresolver.api.ConflictSetConfig;
import org.fdbresolver.engine.EngineFactory;
import org.fdbresolver.engine.Engines;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The options that choose and configure an engine, shared by resolve, bench and demo (a picocli mixin). */
final class EngineOptions {
    static final String REFERENCE = "reference";
    /** Under {@code org.fdbresolver}: its warnings are printed as the engines' are ({@link EngineWarnings}). */
    private static final System.Logger LOG = System.getLogger(EngineOptions.class.getName());

    @Option(names = "--engine", paramLabel = "NAME", order = 10, defaultValue = ConflictSetConfig.DEFAULT_ENGINE,
            description = "the engine that decides (default ${DEFAULT-VALUE}; engines are listed below)")
    String engine;

    /** Null when not given: the default budget, and no error for an engine that has none. */
    @Option(names = "--budget", paramLabel = "BYTES", order = 11, converter = SizeConverter.class,
            description = "history memory budget: a byte count or 512m, 2g, 64KiB, ... (default 1g; "
                    + "not for an engine without one, such as reference)")
    Long budgetBytes;

    @Option(names = "--engine-option", paramLabel = "NAME=VALUE", order = 12, parameterConsumer = OnceEach.class,
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
        return config(ConflictSetConfig.builder().engine(engine).memoryBudgetBytes(budget()), settings);
    }

    /**
     * {@code b} with {@code settings} added, built; a setting the configuration itself refuses (a {@code keyBlockBytes}
     * out of range) is a usage error, as the engine's own refusals are in {@link #open}.
     */
    static ConflictSetConfig config(ConflictSetConfig.Builder b, Map<String, String> settings) {
        settings.forEach(b::option);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    /**
     * {@code --engine-option NAME=VALUE}, each name once: a setting given twice is refused as a repeated
     * {@code --budget} is, rather than the last silently winning (issue 33). Shared by every command that takes
     * the option.
     */
    static final class OnceEach implements IParameterConsumer {
        @Override
        public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
            String option = argSpec instanceof picocli.CommandLine.Model.OptionSpec o ? o.longestName() : "--engine-option";
            if (args.isEmpty()) {
                throw new ParameterException(commandSpec.commandLine(), "missing NAME=VALUE after option '" + option + "'");
            }
            String text = args.pop();
            int eq = text.indexOf('=');
            if (eq <= 0) {
                throw new ParameterException(commandSpec.commandLine(),
                        "invalid value for option '" + option + "': '" + text + "' is not NAME=VALUE");
            }
            String name = text.substring(0, eq);
            Map<String, String> given = argSpec.getValue();
            if (given.containsKey(name)) {
                throw new ParameterException(commandSpec.commandLine(), "option '" + option + "' sets " + name
                        + " twice (" + name + "=" + given.get(name) + ", then " + text + "): give each setting once");
            }
            given.put(name, text.substring(eq + 1));
        }
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
        ConflictSet opened;
        try {
            opened = ConflictSet.open(config);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
        warnWhenLargerThanHeap(opened.engine().historyHeapBoundBytes(), Runtime.getRuntime().maxMemory());
        return opened;
    }

    /**
     * A budget whose history cannot fit in this JVM's heap is accepted (a short trace never fills it) but said
     * once: a long run would end out of memory before the budget drops any history (issue 33: {@code --budget 10t}
     * on a 12 GiB heap passed without a word). {@code historyHeapBound} is what the engine's history may take at
     * most, negative for an engine without a bound.
     */
    static void warnWhenLargerThanHeap(long historyHeapBound, long maxHeap) {
        if (historyHeapBound > maxHeap) {
            LOG.log(System.Logger.Level.WARNING, "the memory budget lets the history take up to " + gib(historyHeapBound)
                    + " of heap, more than this JVM's " + gib(maxHeap) + ": a run that fills it ends out of memory "
                    + "before the budget drops any history (give the JVM more with FDBRESOLVER_JAVA_OPTS=-Xmx..., "
                    + "or a smaller --budget)");
        }
    }

    private static String gib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
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
