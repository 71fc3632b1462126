package org.fdbresolver.harness.fdb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where {@code scripts/build-fdb} put FoundationDB's build, as {@code scripts/build-fdb --where} says (or, asked
 * of {@code scripts/build-skiplist}, where the standalone skip-list comparator is, in the same terms):
 * its {@code name: path} lines on stdout ({@code fdbserver}, {@code fdbcli}, {@code libfdb_c},
 * {@code fdb-skiplist}, ...) and its exit code — 0 built, 3 not built (a {@code build-fdb: not built: ...}
 * line on stderr says what is missing and whether a build is under way), 4 built from another patch series
 * or other bridge headers than the checkout's (a {@code stale: ...} line says which). The one reading of
 * that answer for every test that needs the build (the live conformance, the cluster tests, the skip-list
 * memory model's check).
 *
 * @param exitCode what {@code --where} exited with
 * @param paths    its {@code name: path} lines
 * @param stale    its {@code stale: ...} line, or null
 * @param notBuilt why it is not built, from its {@code build-fdb: not built: ...} line, or null
 */
public record FdbBuildLocation(int exitCode, Map<String, Path> paths, String stale, String notBuilt) {
    /** Overrides where the repository is (default: the working folder or its parent, a module's folder). */
    public static final String REPO_ROOT_PROPERTY = "fdbresolver.repoRoot";

    public static final int BUILT = 0;
    public static final int NOT_BUILT_YET = 3;
    public static final int STALE = 4;

    /** The script for FoundationDB's full build. */
    public static final String FULL_BUILD = "build-fdb";
    /** The script for the standalone skip-list comparator (FoundationDB's ConflictSet.cpp alone). */
    public static final String STANDALONE_SKIPLIST = "build-skiplist";

    /** "build-fdb: not built: WHY" or "build-skiplist: not built: WHY". */
    private static final Pattern NOT_BUILT = Pattern.compile("^[a-z-]+: not built: (.*)$");

    /** The repository holding {@code scripts/build-fdb}. */
    public static Path repositoryRoot() {
        String configured = System.getProperty(REPO_ROOT_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path dir = Path.of("").toAbsolutePath();
        return Files.exists(dir.resolve("scripts/build-fdb")) ? dir : dir.getParent();
    }

    /** Asks {@code repoRoot}'s {@code scripts/build-fdb --where}. */
    public static FdbBuildLocation ask(Path repoRoot) throws IOException {
        return ask(repoRoot, FULL_BUILD);
    }

    /** Asks {@code repoRoot}'s {@code scripts/SCRIPT --where} ({@link #FULL_BUILD} or {@link #STANDALONE_SKIPLIST}). */
    public static FdbBuildLocation ask(Path repoRoot, String scriptName) throws IOException {
        Path script = repoRoot.resolve("scripts").resolve(scriptName);
        if (!Files.isExecutable(script)) {
            throw new IOException("no scripts/" + scriptName + " under " + repoRoot + " (system property " + REPO_ROOT_PROPERTY + ")");
        }
        Process p = new ProcessBuilder(script.toString(), "--where").start();
        // A few short lines each: stdout read whole, then stderr, cannot fill a pipe and stall.
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IOException(script + " --where did not answer within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking " + script + " --where", e);
        }
        Map<String, Path> paths = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                paths.put(line.substring(0, colon), Path.of(line.substring(colon + 2).trim()));
            }
        }
        String stale = null;
        String notBuilt = null;
        for (String line : err.split("\n")) {
            Matcher notBuiltLine = NOT_BUILT.matcher(line);
            if (line.startsWith("stale: ")) {
                stale = line;
            } else if (notBuiltLine.matches()) {
                notBuilt = notBuiltLine.group(1).trim();
            }
        }
        return new FdbBuildLocation(p.exitValue(), Map.copyOf(paths), stale, notBuilt);
    }

    /** The path printed for {@code name} ({@code fdbserver}, {@code fdb-skiplist}, ...), or null. */
    public Path path(String name) {
        return paths.get(name);
    }

    public boolean built() {
        return exitCode == BUILT;
    }

    /**
     * Why there is no build, and what to do, for a test's {@code NOT RUN} line: build-fdb's own reason when it gave
     * one (it says whether a build is under way and how far it got, so nobody starts a second), else that
     * {@code fdbserver} is missing. Meaningful when not {@link #built()}.
     */
    public String whyNotBuilt() {
        if (notBuilt != null) {
            return notBuilt;
        }
        return "FoundationDB is not built (scripts/build-fdb --where exited " + exitCode + "; fdbserver would be "
                + path("fdbserver") + "): run scripts/build-fdb (" + FIRST_BUILD + ")";
    }

    /** How long the first build takes, said where one is suggested; the measurement is in the doc named. */
    public static final String FIRST_BUILD = "hours the first time, see docs/fdb-integration.md";
}
