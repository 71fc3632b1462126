package org.fdbresolver.containers.cluster;

import com.apple.foundationdb.Database;
import com.apple.foundationdb.FDB;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A FoundationDB cluster of {@link ClusterSpec}'s containers on a private Docker network, and an
 * fdb-java {@link Database} on it from this JVM (the host reaches the network's addresses directly).
 *
 * <p>Each process writes its JSON trace files to a host folder, {@code target/fdb-clusters/<run>/<container>/},
 * which outlives the containers (the tests read the trace events there; look there after a failure).
 * The database is {@code configure new single memory} with one log, one commit proxy, one GRV proxy and
 * {@link ClusterSpec#resolvers()} resolvers: process classes put every role where the tests expect it,
 * and a resolution process can be killed without losing data.
 */
final class FdbCluster implements AutoCloseable {
    static final int PORT = 4500;
    static final String STATELESS = "stateless";
    static final String LOG = "log";
    static final String STORAGE = "storage";
    /** The Java client's API version: the newest the fdb-java jar speaks; the 8.0 libfdb_c accepts it. */
    static final int API_VERSION = 740;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long CONTAINER_MEMORY = 2L << 30;
    private static FDB client;

    /** A role in {@code status json}: which process (address, container) holds it. */
    record Role(String role, String id, String address, String container) {
    }

    private final ClusterSpec spec;
    private final Network network;
    private final Path runDir;
    /**
     * CPUs (a cpuset such as {@code 1}) for the resolution processes' containers, and for every other
     * container: set both to give the resolver a core of its own, so that its time per batch is not the
     * other processes' ({@code scripts/fdb-cluster-bench --resolver-cpu}). Unset: no pinning.
     */
    static final String RESOLVER_CPUS = "fdbresolver.cluster.resolverCpus";
    static final String OTHER_CPUS = "fdbresolver.cluster.otherCpus";

    private final Map<String, GenericContainer<?>> containers = new LinkedHashMap<>();
    private final Map<String, String> ipOf = new LinkedHashMap<>();
    private Database database;

    private FdbCluster(ClusterSpec spec, Path runDir) {
        this.spec = spec;
        this.runDir = runDir;
        this.network = Network.newNetwork();
    }

    /** Starts the processes, creates the database, waits until it is fully recovered with its resolvers. */
    static FdbCluster start(FdbBuild build, ClusterSpec spec) throws Exception {
        String image = FdbImage.get(build);
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path runDir = Path.of("target", "fdb-clusters", spec.name() + "-" + stamp).toAbsolutePath();
        Files.createDirectories(runDir);
        FdbCluster cluster = new FdbCluster(spec, runDir);
        try {
            System.out.println("cluster " + spec.name() + ": " + (spec.usesPlugin() ? "plugin " + spec.pluginConfig() : "stock")
                    + ", " + spec.resolvers() + " resolver(s) on " + spec.resolutionProcesses() + " resolution process(es); logs in " + runDir);
            String coordinator = cluster.startProcess(image, STATELESS, "stateless", "self") + ":" + PORT;
            cluster.startProcess(image, LOG, "transaction", coordinator);
            cluster.startProcess(image, STORAGE, "storage", coordinator);
            for (int i = 1; i <= spec.resolutionProcesses(); i++) {
                cluster.startProcess(image, resolution(i), "resolution", coordinator);
            }
            Path clusterFile = runDir.resolve("fdb.cluster");
            Files.writeString(clusterFile, "fdbresolver:cluster@" + coordinator + "\n");
            cluster.configure();
            cluster.awaitHealthy(Duration.ofMinutes(3), s -> true);
            cluster.database = client(build).open(clusterFile.toString());
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    static String resolution(int i) {
        return "resolution-" + i;
    }

    /** The Java client, once per JVM: libfdb_c from the FoundationDB build, client traces beside the clusters'. */
    static synchronized FDB client(FdbBuild build) throws IOException {
        if (client == null) {
            // fdb-java's class initializer loads libfdb_c from this system property, then its own JNI
            // library, which needs it: set it before anything touches the FDB class.
            System.setProperty("FDB_LIBRARY_PATH_FDB_C", build.libfdbC().toString());
            FDB fdb = FDB.selectAPIVersion(API_VERSION);
            Path traces = Path.of("target", "fdb-clusters", "client-traces").toAbsolutePath();
            Files.createDirectories(traces);
            fdb.options().setTraceEnable(traces.toString());
            fdb.options().setTraceFormat("json");
            client = fdb;
        }
        return client;
    }

    private String startProcess(String image, String name, String processClass, String coordinator) throws IOException {
        Path logs = logDir(name);
        Files.createDirectories(logs);
        // fdbserver runs as the image's unprivileged user.
        Files.setPosixFilePermissions(logs, PosixFilePermissions.fromString("rwxrwxrwx"));
        // fdbserver's memory limit matches the container's; it must exceed the page cache (default 2 GiB).
        List<String> args = new ArrayList<>(List.of("--class=" + processClass, "--trace-format=json", "--memory=2GiB",
                "--cache-memory=512MiB"));
        if (spec.usesPlugin()) {
            args.add("--knob_resolver_conflict_set_plugin=" + spec.library());
            args.add("--knob_resolver_conflict_set_plugin_config=" + spec.pluginConfig());
        }
        args.addAll(spec.knobs());
        List<Bind> binds = new ArrayList<>(List.of(new Bind(logs.toString(), new Volume("/var/fdb/logs"))));
        if (spec.testEngineClasses() != null) {
            binds.add(new Bind(spec.testEngineClasses().toAbsolutePath().toString(), new Volume(ClusterSpec.TEST_ENGINE_CLASSES_MOUNT), AccessMode.ro));
        }
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image))
                .withNetwork(network)
                .withNetworkAliases(name)
                .withEnv("FDB_COORDINATOR", coordinator)
                .withCommand(args.toArray(String[]::new))
                .withCreateContainerCmdModifier(cmd -> {
                    cmd.withHostName(name);
                    // A plain bind: withFileSystemBind would first probe with an image that must be pulled.
                    cmd.getHostConfig().withBinds(binds).withMemory(CONTAINER_MEMORY).withMemorySwap(CONTAINER_MEMORY);
                    String cpus = System.getProperty(processClass.equals("resolution") ? RESOLVER_CPUS : OTHER_CPUS, "");
                    if (!cpus.isBlank()) {
                        cmd.getHostConfig().withCpusetCpus(cpus);
                    }
                })
                .withLogConsumer(frame -> System.out.print("[" + name + "] " + frame.getUtf8String()))
                .waitingFor(Wait.forLogMessage(".*fdb-process: fdbserver at .*", 1).withStartupTimeout(Duration.ofMinutes(1)));
        containers.put(name, c);
        c.start();
        String ip = null;
        for (ContainerNetwork n : c.getContainerInfo().getNetworkSettings().getNetworks().values()) {
            if (network.getId().equals(n.getNetworkID())) {
                ip = n.getIpAddress();
            }
        }
        if (ip == null || ip.isEmpty()) {
            throw new IllegalStateException(name + " has no address on the cluster's network");
        }
        ipOf.put(name, ip);
        return ip;
    }

    private void configure() throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            ExecResult r = fdbcli(spec.configureCommand(), 30);
            String out = r.getStdout() + r.getStderr();
            // The creating transaction reads its own init id: when a retry follows a first commit that went
            // through, it conflicts and fdbcli reports "Database created". A resolver that commits everything
            // lets the retry commit again, and fdbcli says "Configuration changed": configured all the same.
            if (out.contains("Database created") || out.contains("Database already exists") || out.contains("Configuration changed")) {
                System.out.println("cluster " + spec.name() + ": " + spec.configureCommand() + ": " + out.trim());
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("fdbcli could not configure the database: " + out);
            }
            Thread.sleep(1000);
        }
    }

    /** Runs one fdbcli command in the stateless container. */
    ExecResult fdbcli(String command, int timeoutSeconds) throws IOException, InterruptedException {
        return containers.get(STATELESS).execInContainer("fdbcli", "-C", "/var/fdb/fdb.cluster", "--timeout", String.valueOf(timeoutSeconds),
                "--exec", command);
    }

    /** fdbcli's {@code status json}. */
    JsonNode status() throws IOException, InterruptedException {
        ExecResult r = fdbcli("status json", 20);
        String out = r.getStdout();
        int brace = out.indexOf('{');
        if (brace < 0) {
            throw new IllegalStateException("status json printed no JSON: " + out + r.getStderr());
        }
        return JSON.readTree(out.substring(brace));
    }

    /**
     * Waits until the database is available and fully recovered with its resolvers, and {@code more}
     * holds; returns that status. On timeout, fails with the last status's recovery state and messages.
     */
    JsonNode awaitHealthy(Duration timeout, Predicate<JsonNode> more) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            try {
                last = status();
                if (healthy(last) && more.test(last)) {
                    return last;
                }
            } catch (IllegalStateException | IOException notYet) {
                // fdbcli has no answer yet
            }
            Thread.sleep(1000);
        }
        throw new IllegalStateException("cluster " + spec.name() + " not healthy within " + timeout + ": "
                + (last == null ? "no status" : "recovery state " + last.path("cluster").path("recovery_state")
                        + ", messages " + last.path("cluster").path("messages") + ", client " + last.path("client")));
    }

    private boolean healthy(JsonNode status) {
        return status.path("client").path("database_status").path("available").asBoolean(false)
                && "fully_recovered".equals(status.path("cluster").path("recovery_state").path("name").asText())
                && roles(status, "resolver").size() == spec.resolvers();
    }

    /** The processes that hold {@code role} in {@code status}. */
    List<Role> roles(JsonNode status, String role) {
        List<Role> found = new ArrayList<>();
        for (Iterator<JsonNode> it = status.path("cluster").path("processes").elements(); it.hasNext();) {
            JsonNode process = it.next();
            String address = process.path("address").asText();
            for (JsonNode r : process.path("roles")) {
                if (role.equals(r.path("role").asText())) {
                    found.add(new Role(role, r.path("id").asText(), address, containerAt(address)));
                }
            }
        }
        return found;
    }

    /** Which container an "ip:port" address belongs to (null if none). */
    String containerAt(String address) {
        String ip = address.substring(0, address.indexOf(':'));
        for (Map.Entry<String, String> e : ipOf.entrySet()) {
            if (e.getValue().equals(ip)) {
                return e.getKey();
            }
        }
        return null;
    }

    Database database() {
        return database;
    }

    ClusterSpec spec() {
        return spec;
    }

    Path logDir(String container) {
        return runDir.resolve(container);
    }

    Path runDir() {
        return runDir;
    }

    List<String> containerNames() {
        return List.copyOf(containers.keySet());
    }

    TraceLog trace(String container) {
        return TraceLog.read(logDir(container));
    }

    /** Polls {@code container}'s trace until an event satisfies {@code p}; returns it. */
    TraceLog.Event awaitTrace(String container, Predicate<TraceLog.Event> p, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<TraceLog.Event> found = trace(container).filter(p);
            if (!found.isEmpty()) {
                return found.getLast();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no trace event in " + container + " within " + timeout + ": " + what + " (traces in "
                        + logDir(container) + ")");
            }
            Thread.sleep(1000);
        }
    }

    /** SIGKILL to the container's fdbserver (its tini), as a crash or a lost machine would. */
    void kill(String container) {
        docker().killContainerCmd(containers.get(container).getContainerId()).exec();
    }

    /** {@code docker stop}: SIGTERM, SIGKILL after {@code grace}; returns the container's exit code. */
    long stop(String container, Duration grace) {
        String id = containers.get(container).getContainerId();
        docker().stopContainerCmd(id).withTimeout((int) grace.toSeconds()).exec();
        return docker().inspectContainerCmd(id).exec().getState().getExitCodeLong();
    }

    /**
     * CPU time the container's processes have used, in nanoseconds: its cgroup's own counter, read inside
     * the container (cgroup v1 cpuacct.usage, or v2 cpu.stat's usage_usec). A read takes milliseconds;
     * Docker's stats API takes a second or two per call.
     */
    long cpuNanos(String container) throws IOException, InterruptedException {
        ExecResult r = containers.get(container).execInContainer("bash", "-c",
                "cat /sys/fs/cgroup/cpuacct/cpuacct.usage 2>/dev/null || awk '/^usage_usec/ { printf \"%d\\n\", $2 * 1000 }' /sys/fs/cgroup/cpu.stat");
        try {
            return Long.parseLong(r.getStdout().trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("no CPU counter in " + container + "'s cgroup: " + r.getStdout() + r.getStderr(), e);
        }
    }

    /** Names of files under {@code dir} in a container (running or stopped) whose name contains {@code part}. */
    List<String> filesInContainer(String container, String dir, String part) throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = docker().copyArchiveFromContainerCmd(containers.get(container).getContainerId(), dir).exec();
                TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            for (TarArchiveEntry e = tar.getNextTarEntry(); e != null; e = tar.getNextTarEntry()) {
                if (e.getName().contains(part)) {
                    names.add(e.getName());
                }
            }
        }
        return names;
    }

    /** JVM crash dumps (hs_err files) in any process's log folder, where the engine's JVM writes them. */
    List<Path> jvmCrashDumps() {
        List<Path> dumps = new ArrayList<>();
        for (String name : containers.keySet()) {
            try (Stream<Path> files = Files.list(logDir(name))) {
                files.filter(f -> f.getFileName().toString().startsWith("hs_err")).forEach(dumps::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return dumps;
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    @Override
    public void close() {
        if (database != null) {
            database.close();
        }
        for (Map.Entry<String, GenericContainer<?>> e : containers.entrySet()) {
            GenericContainer<?> c = e.getValue();
            try {
                if (c.getContainerId() != null) {
                    Files.writeString(logDir(e.getKey()).resolve("container.log"), c.getLogs(), StandardCharsets.UTF_8);
                }
            } catch (IOException | RuntimeException ignored) {
                // the container's own log is a convenience; the trace files are already on the host
            }
            c.stop();
        }
        network.close();
        System.out.println("cluster " + spec.name() + " stopped; logs in " + runDir);
    }
}
