package org.fdbresolver.engine;

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

    ConflictEngine create(ConflictSetConfig config);
}
