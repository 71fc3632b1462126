package org.fdbresolver.containers.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The FoundationDB image of {@code containers/fdb-cluster/Dockerfile}: the patched fdbserver and fdbcli,
 * a jlink'd Java runtime and the bridge. Its context comes from {@code fdb-cluster/prepare-context.sh};
 * built once per test JVM (Docker's layer cache makes an unchanged rebuild quick).
 */
final class FdbImage {
    static final String BASE_IMAGE = System.getenv().getOrDefault("FDBRESOLVER_BASE_IMAGE", "fdbresolver-base:bookworm");
    private static final String TAG = "fdbresolver-fdb:test";

    private static String built;

    private FdbImage() {
    }

    /** The image's name, built on first use. Needs the FoundationDB build and a Docker engine. */
    static synchronized String get(FdbBuild build) throws IOException, InterruptedException {
        if (built == null) {
            requireDocker();
            Path context = Path.of("target", "fdb-image-context").toAbsolutePath();
            ProcessBuilder pb = new ProcessBuilder(build.repoRoot().resolve("containers/fdb-cluster/prepare-context.sh").toString(),
                    context.toString()).inheritIO();
            pb.environment().put("JAVA_HOME", System.getProperty("java.home")); // jlink of the JDK running the tests
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("containers/fdb-cluster/prepare-context.sh failed (its output is above)");
            }
            built = new ImageFromDockerfile(TAG, false).withFileFromPath(".", context).withBuildArg("BASE_IMAGE", BASE_IMAGE).get();
        }
        return built;
    }

    /** Fails with the fix when Docker or the base image is missing. */
    static void requireDocker() {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            throw new IllegalStateException("the cluster tests need a Docker engine: run containers/setup-docker.sh (as root)");
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(BASE_IMAGE).exec();
        } catch (RuntimeException e) {
            throw new IllegalStateException("base image " + BASE_IMAGE + " is missing: run containers/setup-docker.sh", e);
        }
    }
}
