package org.fdbresolver.containers.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A cluster's shape: one container per fdbserver process — {@code stateless} (the coordinator, cluster
 * controller, master, proxies, ratekeeper, data distributor), {@code log} (class transaction),
 * {@code storage}, and {@code resolution-1..n} (class resolution: the processes tests kill) — and the
 * Resolver's conflict set: stock FoundationDB ({@code pluginConfig == null}, the knob unset) or
 * fdbresolver's engine with that configuration.
 *
 * @param name            names the run's log folder
 * @param pluginConfig    RESOLVER_CONFLICT_SET_PLUGIN_CONFIG; null: stock (the plugin knob unset)
 * @param resolutionProcesses processes of class resolution
 * @param resolvers       the database's {@code resolvers=} setting
 * @param knobs           more {@code --knob_name=value} arguments, for every process
 * @param library         the library the knob names (the image's own, or one that is not there); null for stock
 * @param testEngineClasses a host folder of compiled classes mounted at {@value #TEST_ENGINE_CLASSES_MOUNT}
 *                          (engines only tests have)
 */
record ClusterSpec(String name, String pluginConfig, int resolutionProcesses, int resolvers, List<String> knobs, Path testEngineClasses,
        String library) {
    static final String PLUGIN_LIBRARY = "/opt/fdbresolver/native/libfdbresolver.so";
    static final String TEST_ENGINE_CLASSES_MOUNT = "/opt/fdbresolver-test-engines";
    /** The JVM's crash dumps go to the log folder, which the host sees. */
    static final String JVM_ERROR_FILE = "/var/fdb/logs/hs_err_pid%p.log";

    /**
     * The engine inside fdbserver, sized for this small cluster: a 256 MiB history budget, on the JVM's heap,
     * which the bridge sizes from it (256 MiB, an eighth and 192 MiB: no -Xmx given, as docs/fdb-integration.md
     * advises), with the serial collector (two cores here, shared). fdbserver's --memory of 2 GiB less the 1 GiB
     * it keeps for itself holds that JVM, which the plugin checks at open.
     */
    static String pluginConfig(String engine) {
        return "engine=" + engine + ";memory_budget=256m;jvm_option=-XX:+UseSerialGC;"
                + "jvm_option=-XX:ErrorFile=" + JVM_ERROR_FILE;
    }

    /**
     * The plugin deciding ({@code mode=plugin}, the mode an operator ends at, which these tests are about), not the
     * hook's default {@code shadow}, where the skip list would answer; {@link #withMode} chooses another.
     */
    static ClusterSpec plugin(String name) {
        return new ClusterSpec(name, "mode=plugin;" + pluginConfig("tree"), 1, 1, List.of(), null, PLUGIN_LIBRARY);
    }

    static ClusterSpec stock(String name) {
        return new ClusterSpec(name, null, 1, 1, List.of(), null, null);
    }

    /** The same with the knob naming another library (one that is missing, say). */
    ClusterSpec withLibrary(String path) {
        return new ClusterSpec(name, pluginConfig, resolutionProcesses, resolvers, knobs, testEngineClasses, path);
    }

    /** The same plugin configuration with more settings after it ("engine_option=fault=throw", ...). */
    ClusterSpec withSettings(String settings) {
        return new ClusterSpec(name, pluginConfig + ";" + settings, resolutionProcesses, resolvers, knobs, testEngineClasses, library);
    }

    ClusterSpec withResolvers(int resolvers, int processes) {
        return new ClusterSpec(name, pluginConfig, processes, resolvers, knobs, testEngineClasses, library);
    }

    ClusterSpec withKnob(String knob) {
        List<String> more = new ArrayList<>(knobs);
        more.add(knob);
        return new ClusterSpec(name, pluginConfig, resolutionProcesses, resolvers, List.copyOf(more), testEngineClasses, library);
    }

    /** The plugin with an engine from the compiled classes in {@code classes} (mounted), before the image's own class path. */
    ClusterSpec withTestEngine(String engine, Path classes) {
        String config = modeSetting() + pluginConfig(engine) + ";class_path=" + TEST_ENGINE_CLASSES_MOUNT
                + ":/opt/fdbresolver/*:/opt/fdbresolver/lib/*";
        return new ClusterSpec(name, config, resolutionProcesses, resolvers, knobs, classes, library);
    }

    /**
     * The plugin and FoundationDB's skip list decide every batch, and the Resolver sends the plugin's answer only
     * where both agree (the hook's {@code mode=guarded}): a difference is a SevError
     * {@code ResolverConflictSetPluginDiffers}, and the skip list goes on alone.
     */
    ClusterSpec guarded() {
        return withMode("guarded");
    }

    /** The hook's rollout mode: shadow, guarded or plugin (docs/fdb-integration.md). */
    ClusterSpec withMode(String mode) {
        if (pluginConfig == null) {
            throw new IllegalStateException("a stock cluster has no plugin");
        }
        return new ClusterSpec(name, "mode=" + mode + ";" + pluginConfig.substring(modeSetting().length()), resolutionProcesses, resolvers,
                knobs, testEngineClasses, library);
    }

    /** The leading {@code mode=...;} of the plugin's configuration, or "". */
    private String modeSetting() {
        int end = pluginConfig == null || !pluginConfig.startsWith("mode=") ? -1 : pluginConfig.indexOf(';');
        return end < 0 ? "" : pluginConfig.substring(0, end + 1);
    }

    boolean usesPlugin() {
        return pluginConfig != null;
    }

    /** The fdbcli command that creates the database. */
    String configureCommand() {
        return "configure new single memory logs=1 commit_proxies=1 grv_proxies=1 resolvers=" + resolvers;
    }
}
