package org.fdbresolver.containers.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One fdbserver process's trace events, read from its JSON trace files ({@code --trace-format json}:
 * one object per line, every value a string). A line still being written is skipped.
 */
final class TraceLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One trace event. */
    record Event(JsonNode json) {
        String type() {
            return json.path("Type").asText();
        }

        /** Seconds since the epoch, as fdbserver's clock (the host's) says. */
        double time() {
            return number("Time");
        }

        int severity() {
            return json.path("Severity").asInt();
        }

        String id() {
            return json.path("ID").asText();
        }

        String detail(String name) {
            return json.path(name).asText(null);
        }

        /** A detail read as a number (fdbserver writes every value as a string); 0 when the event has none. */
        double number(String name) {
            return json.path(name).asDouble();
        }

        /**
         * A counter of a {@code ...Metrics} event: its total. Counters are written "rate roughness total",
         * special counters as the value alone.
         */
        long counter(String name) {
            String text = detail(name);
            if (text == null) {
                throw new IllegalArgumentException("no counter " + name + " in " + json);
            }
            String[] parts = text.trim().split(" ");
            return Long.parseLong(parts[parts.length - 1]);
        }

        @Override
        public String toString() {
            return json.toString();
        }
    }

    private final List<Event> events;

    private TraceLog(List<Event> events) {
        this.events = events;
    }

    /** Every event in the trace files of {@code logDir}, in time order. */
    static TraceLog read(Path logDir) {
        List<Event> events = new ArrayList<>();
        if (Files.isDirectory(logDir)) {
            try (Stream<Path> files = Files.list(logDir)) {
                for (Path file : files.filter(f -> f.getFileName().toString().matches("trace\\..*\\.json")).sorted().toList()) {
                    for (String line : Files.readAllLines(file)) {
                        if (line.isBlank()) {
                            continue;
                        }
                        try {
                            events.add(new Event(JSON.readTree(line)));
                        } catch (JsonProcessingException partialLine) {
                            // the last line of a file fdbserver is still writing
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        events.sort(Comparator.comparingDouble(Event::time));
        return new TraceLog(events);
    }

    List<Event> all() {
        return events;
    }

    List<Event> ofType(String type) {
        return filter(e -> e.type().equals(type));
    }

    List<Event> filter(Predicate<Event> p) {
        return events.stream().filter(p).toList();
    }
}
