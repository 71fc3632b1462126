package org.fdbresolver.engine;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.fdbresolver.api.ConflictSetConfig;

/** The registry of engines by name. */
public final class Engines {
    private Engines() {
    }

    /** Every engine factory on the class path, by name. */
    public static Map<String, EngineFactory> all() {
        Map<String, EngineFactory> byName = new TreeMap<>();
        for (EngineFactory f : ServiceLoader.load(EngineFactory.class, Engines.class.getClassLoader())) {
            byName.put(f.name(), f);
        }
        return byName;
    }

    public static ConflictEngine create(ConflictSetConfig config) {
        EngineFactory f = all().get(config.engine());
        if (f == null) {
            throw new IllegalArgumentException("unknown engine '" + config.engine() + "' (known: "
                    + String.join(", ", all().keySet()) + ")");
        }
        return f.create(config);
    }
}
