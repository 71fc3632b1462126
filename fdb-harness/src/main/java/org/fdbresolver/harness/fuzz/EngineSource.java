package org.fdbresolver.harness.fuzz;

import java.util.Map;
import org.fdbresolver.api.ConflictSet;

/**
 * The engine under test, opened afresh for every trace: the CLI opens a registered engine by name with the
 * command line's settings; a test can wrap an engine of its own (a deliberately broken one).
 */
public interface EngineSource {
    /** The engine's name, as decisions and listings show it. */
    String name();

    /** Whether it keeps its history within a memory budget (the small-budget shapes need one). */
    boolean honoursBudget();

    /**
     * A new conflict set.
     *
     * @param budget       a memory budget for this trace instead of the configured one, or null
     * @param extraOptions engine options for this trace on top of the configured ones (may be empty)
     */
    ConflictSet open(Long budget, Map<String, String> extraOptions);

    /** The configured budget, in words, or null when the engine has none. */
    String budgetText(Long budget);
}
