package org.fdbresolver.containers.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.fdbresolver.engine.EngineFactory;

/**
 * Packs a test engine from this module's test classes into a jar of its own, registered for
 * {@link java.util.ServiceLoader}, so that a cluster can load it inside fdbserver (mounted beside the
 * image's jars) without it being on any other class path.
 */
final class EngineJar {
    private EngineJar() {
    }

    /** Writes {@code dir/<simple name>.jar} with every class of {@code factory}'s package; returns {@code dir}. */
    static Path write(Class<? extends EngineFactory> factory, Path dir) throws IOException {
        Path classes;
        try {
            classes = Path.of(factory.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        String packagePath = factory.getPackageName().replace('.', '/');
        Files.createDirectories(dir);
        List<Path> files;
        try (Stream<Path> s = Files.list(classes.resolve(packagePath))) {
            files = s.filter(f -> f.toString().endsWith(".class")).sorted().toList();
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve(factory.getSimpleName() + ".jar"));
                JarOutputStream jar = new JarOutputStream(out)) {
            for (Path f : files) {
                jar.putNextEntry(new JarEntry(packagePath + "/" + f.getFileName()));
                jar.write(Files.readAllBytes(f));
                jar.closeEntry();
            }
            jar.putNextEntry(new JarEntry("META-INF/services/" + EngineFactory.class.getName()));
            jar.write((factory.getName() + "\n").getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return dir;
    }
}
