package org.fdbresolver.containers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The resolver as an operator would deploy it, {@code containers/Dockerfile}: a minimal Debian image (built
 * locally by {@code containers/setup-docker.sh}, since no registry is reachable) with a jlink'd Java runtime
 * and the resolver's jars, and nothing else: no JDK, no Maven, no build tree. This class prepares the
 * Dockerfile's build context (jre/ and lib/) and builds it.
 */
final class ResolverImage {
    /** The base image containers/setup-docker.sh builds, and the Dockerfile's default. */
    static final String DEFAULT_BASE_IMAGE = "fdbresolver-base:bookworm";
    static final String BASE_IMAGE = System.getenv().getOrDefault("FDBRESOLVER_BASE_IMAGE", DEFAULT_BASE_IMAGE);
    /** The image's recipe, in the module's folder (Maven runs the tests there). */
    static final Path DOCKERFILE = Path.of("Dockerfile");
    /** Modules the CLI and engines need at run time. */
    private static final String MODULES = "java.base,java.logging,java.management,jdk.management,jdk.unsupported,jdk.jfr";

    private static ImageFromDockerfile image;

    private ResolverImage() {
    }

    /** Fails with the fix when Docker or the base image is missing, rather than skipping. */
    static void requireDocker() {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new IllegalStateException("the container tests need a Docker engine: run containers/setup-docker.sh (as root)");
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(BASE_IMAGE).exec();
        } catch (RuntimeException e) {
            throw new IllegalStateException("base image " + BASE_IMAGE + " is missing: run containers/setup-docker.sh", e);
        }
    }

    static synchronized ImageFromDockerfile get() throws IOException, InterruptedException {
        if (image == null) {
            requireDocker();
            Path context = Path.of("target", "image-context").toAbsolutePath();
            prepareContext(context);
            image = new ImageFromDockerfile("fdbresolver-runtime:test", false).withFileFromPath(".", context)
                    .withBuildArg("BASE_IMAGE", BASE_IMAGE);
        }
        return image;
    }

    private static void prepareContext(Path context) throws IOException, InterruptedException {
        Path jre = context.resolve("jre");
        if (!Files.isExecutable(jre.resolve("bin/java")) || !hasModules(jre)) {
            deleteRecursively(context);
            Files.createDirectories(context);
            Path jlink = Path.of(System.getProperty("java.home"), "bin", "jlink");
            Process p = new ProcessBuilder(jlink.toString(), "--add-modules", MODULES, "--strip-debug", "--no-header-files",
                    "--no-man-pages", "--output", jre.toString()).inheritIO().start();
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("jlink failed to build the image's Java runtime");
            }
        }
        Path jars = Path.of(System.getProperty("fdbresolver.imageJars"));
        Path lib = context.resolve("lib");
        deleteRecursively(lib);
        Files.createDirectories(lib);
        try (Stream<Path> s = Files.list(jars)) {
            for (Path jar : s.toList()) {
                Files.copy(jar, lib.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.copy(DOCKERFILE, context.resolve("Dockerfile"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Whether a runtime built earlier has every module of {@link #MODULES} (its {@code release} file lists them). */
    private static boolean hasModules(Path jre) throws IOException {
        Path release = jre.resolve("release");
        if (!Files.isRegularFile(release)) {
            return false;
        }
        String listed = Files.readAllLines(release).stream().filter(l -> l.startsWith("MODULES=")).findFirst().orElse("");
        return List.of(listed.replace("MODULES=", "").replace("\"", "").split(" ")).containsAll(List.of(MODULES.split(",")));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
