package org.fdbresolver.engine;

import java.util.Set;
import java.util.TreeSet;
import org.fdbresolver.api.ConflictSetConfig;

/**
 * Makes engines of one name. Factories are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.fdbresolver.engine.EngineFactory}), so test and harness modules can add
 * engines of their own.
 */
public interface EngineFactory {

    String name();

    /** One line for {@code --help} listings. */
    String description();

    /**
     * Whether the engine keeps its history within {@link ConflictSetConfig#memoryBudgetBytes()}. False for an
     * engine that keeps all history whatever the budget (the reference): tools refuse a budget given for it
     * rather than let it look as if it had an effect.
     */
    default boolean honoursMemoryBudget() {
        return true;
    }

    /**
     * An engine for this configuration.
     *
     * @throws IllegalArgumentException for an option the engine does not take or a bad value, with a message
     *                                  that names the engine once and the option ({@link #checkOptions})
     */
    ConflictEngine create(ConflictSetConfig config);

    /**
     * Refuses options that engine {@code engine} does not take: a misspelt or misplaced tuning option must
     * fail loudly rather than be ignored. The message names the engine once and the first unknown option:
     * {@code engine reference: unknown option 'nodeBytes' (it takes none)}.
     */
    static void checkOptions(ConflictSetConfig config, String engine, Set<String> known) {
        for (String name : new TreeSet<>(config.options().keySet())) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("engine " + engine + ": unknown option '" + name + "' ("
                        + (known.isEmpty() ? "it takes none" : "known: " + String.join(", ", new TreeSet<>(known))) + ")");
            }
        }
    }
}
