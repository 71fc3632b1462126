package org.fdbresolver.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * containers/Dockerfile, the image the container tests build (no Docker needed here): it starts from the
 * base image setup-docker.sh builds locally, has no RUN step (building needs no container nor network),
 * runs as an unprivileged user, and its entry point is the CLI's main class.
 */
class DockerfileTest {

    /** The Dockerfile's instructions, comments and blank lines dropped. */
    static List<String> instructions() throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(ResolverImage.DOCKERFILE)) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("#")) {
                lines.add(s);
            }
        }
        return lines;
    }

    @Test
    void startsFromTheLocallyBuiltBaseImage() throws IOException {
        List<String> lines = instructions();
        assertEquals("ARG BASE_IMAGE=" + ResolverImage.DEFAULT_BASE_IMAGE, lines.get(0));
        assertEquals("FROM ${BASE_IMAGE}", lines.get(1));
        Matcher m = Pattern.compile("BASE_IMAGE=\"\\$\\{FDBRESOLVER_BASE_IMAGE:-([^}]+)}\"")
                .matcher(Files.readString(Path.of("setup-docker.sh")));
        assertTrue(m.find(), "setup-docker.sh names its base image");
        assertEquals(ResolverImage.DEFAULT_BASE_IMAGE, m.group(1),
                "setup-docker.sh builds the image the Dockerfile starts from");
    }

    @Test
    void buildsWithoutRunningAnythingAndRunsUnprivileged() throws IOException {
        List<String> lines = instructions();
        assertFalse(lines.stream().anyMatch(l -> l.startsWith("RUN")), "no RUN step: " + lines);
        String user = lines.stream().filter(l -> l.startsWith("USER ")).reduce((a, b) -> b).orElseThrow();
        assertFalse(user.equals("USER root") || user.startsWith("USER 0"), user);
    }

    @Test
    void entryPointIsTheCli() throws Exception {
        String entry = instructions().stream().filter(l -> l.startsWith("ENTRYPOINT ")).findFirst().orElseThrow();
        Matcher m = Pattern.compile("\"(org\\.fdbresolver\\.[\\w.]+)\"]$").matcher(entry);
        assertTrue(m.find(), entry);
        Class<?> main = Class.forName(m.group(1));
        assertEquals("main", main.getMethod("main", String[].class).getName());
    }
}
