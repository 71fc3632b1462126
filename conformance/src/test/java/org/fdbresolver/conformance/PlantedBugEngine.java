package org.fdbresolver.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.fdbresolver.engine.ConflictEngine;

/**
 * A planted bug for the fuzzer to find (FuzzerFindsPlantedBugTest): the reference engine with one comparison
 * wrong. In its {@code overlapsAny}, which checks a read against the earlier committed writes of its batch, a write
 * {@code [a, b)} is taken to overlap a read that begins exactly at {@code b} ({@code >= 0} where the original has
 * {@code > 0}): half-open ranges that only touch conflict within a batch.
 *
 * <p>The engine is made from the reference engine's own source (plugin's {@code ReferenceEngine.java}) with that
 * one change, compiled when first asked for, rather than kept as a copy: so it stays the reference engine line
 * for line as that one changes, and the change fails loudly when the line it replaces is no longer there. It is
 * test-only and not registered, so no other test picks it up.
 */
final class PlantedBugEngine {
    static final String NAME = "planted-bug";

    private static final String SOURCE = "plugin/src/main/java/org/fdbresolver/reference/ReferenceEngine.java";
    private static final String PACKAGE = "org.fdbresolver.conformance.planted";
    /** The comparison the bug changes: the first test of {@code overlapsAny}. */
    private static final String ORIGINAL = "        Map.Entry<Key, Key> floor = union.floorEntry(begin);\n"
            + "        if (floor != null && floor.getValue().compareTo(begin) > 0) {\n"
            + "            return true;";
    private static final String PLANTED = "        Map.Entry<Key, Key> floor = union.floorEntry(begin);\n"
            + "        if (floor != null && floor.getValue().compareTo(begin) >= 0) { // the planted bug: > 0 in the reference engine\n"
            + "            return true;";

    private static Constructor<? extends ConflictEngine> constructor;

    private PlantedBugEngine() {
    }

    /** A new planted-bug engine (the first call compiles it). */
    static ConflictEngine create() {
        try {
            return constructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static synchronized Constructor<? extends ConflictEngine> constructor() {
        if (constructor == null) {
            constructor = compile();
        }
        return constructor;
    }

    /** The mutant's source: the reference engine's, in a package of its own, with the one comparison changed. */
    static String mutantSource(String reference) {
        int at = reference.indexOf(ORIGINAL);
        if (at < 0 || reference.indexOf(ORIGINAL, at + 1) >= 0) {
            throw new IllegalStateException(SOURCE + " no longer holds the comparison the planted bug changes exactly once:\n"
                    + ORIGINAL);
        }
        String s = reference.substring(0, at) + PLANTED + reference.substring(at + ORIGINAL.length());
        return replaceOnce(replaceOnce(replaceOnce(s, "package org.fdbresolver.reference;", "package " + PACKAGE + ";"),
                "public final class ReferenceEngine ", "public final class PlantedBugEngine "),
                "NAME = \"" + "reference" + "\";", "NAME = \"" + NAME + "\";");
    }

    private static String replaceOnce(String s, String what, String with) {
        int at = s.indexOf(what);
        if (at < 0) {
            throw new IllegalStateException(SOURCE + " no longer holds: " + what);
        }
        return s.substring(0, at) + with + s.substring(at + what.length());
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort at exit: a folder left in the temporary directory is harmless
        }
    }

    private static Constructor<? extends ConflictEngine> compile() {
        try {
            String source = mutantSource(Files.readString(repoRoot().resolve(SOURCE)));
            Path dir = Files.createTempDirectory("planted-bug");
            // The classes are loaded from it for the rest of the run: removed when the JVM exits, not left in /tmp.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "planted-bug-cleanup"));
            Path file = dir.resolve("src").resolve(PACKAGE.replace('.', '/')).resolve("PlantedBugEngine.java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source, StandardCharsets.UTF_8);
            Path classes = Files.createDirectories(dir.resolve("classes"));
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", classPath(), "-proc:none", file.toString());
            if (rc != 0) {
                throw new IllegalStateException("the planted-bug engine did not compile (javac exit " + rc + ")");
            }
            ClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ConflictEngine.class.getClassLoader());
            return loader.loadClass(PACKAGE + ".PlantedBugEngine").asSubclass(ConflictEngine.class).getConstructor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where the engine API's classes are (the plugin's jar or classes folder), for javac. */
    private static String classPath() {
        try {
            return Path.of(ConflictEngine.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The repository: the first folder up from here that holds the reference engine's source. */
    private static Path repoRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(SOURCE))) {
                return p;
            }
        }
        throw new IllegalStateException("no " + SOURCE + " above " + Path.of("").toAbsolutePath()
                + ": the planted-bug engine is made from the repository's source");
    }
}
