package org.fdbresolver.harness.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Off a terminal, a long step prints a plain progress line at a fixed interval, from a timer, so it shows
 * even while the step reports nothing (issue 19 item 9); the mode comes from {@code fdbresolver.progress}.
 */
class ProgressTest {

    private static List<String> linesAfter(ByteArrayOutputStream bytes, int atLeast) throws InterruptedException {
        for (int waited = 0; waited < 10_000; waited += 20) {
            List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            if (lines.size() >= atLeast) {
                return lines;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("fewer than " + atLeast + " lines in 10 s: " + bytes.toString(StandardCharsets.UTF_8));
    }

    /**
     * The first line that starts with {@code prefix}: the timer may print a line or two from before the update
     * under test when the machine is busy, so waiting for a count of lines is not enough.
     */
    private static String lineStartingWith(ByteArrayOutputStream bytes, String prefix) throws InterruptedException {
        for (int waited = 0; waited < 10_000; waited += 20) {
            for (String line : bytes.toString(StandardCharsets.UTF_8).lines().toList()) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no line starting '" + prefix + "' in 10 s: " + bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void lineModePrintsPlainLinesFromATimer() throws InterruptedException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = new Progress(err, Progress.Mode.LINES, "tree 16MiB", 1000, "bytes", 50)) {
            List<String> silent = linesAfter(bytes, 1);
            assertTrue(silent.getFirst().matches("fdbresolver: tree 16MiB: \\d+ s so far"), silent::toString);
            p.update(420, 12, 3456);
            String last = lineStartingWith(bytes, "fdbresolver: tree 16MiB: 42.0%");
            List<String> lines = linesAfter(bytes, 1);
            assertTrue(last.matches("fdbresolver: tree 16MiB: 42\\.0%, 12 batches, 3,456 tx \\([0-9,]+ tx/s\\), \\d+ s so far"),
                    last);
            assertTrue(lines.stream().noneMatch(l -> l.contains("\r") || l.contains("\u001b")), "no terminal controls");
        }
        int printed = bytes.toString(StandardCharsets.UTF_8).lines().toList().size();
        Thread.sleep(200);
        assertEquals(printed, bytes.toString(StandardCharsets.UTF_8).lines().toList().size(), "closed: no more lines");
    }

    /** Issue 33: retention's search for FoundationDB's window replays the trace per window; each pass is named. */
    @Test
    void aStepThatStartsAgainSaysWhichPassItIsOn() throws InterruptedException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = new Progress(err, Progress.Mode.LINES, "FoundationDB window, 16MiB", 1000, "bytes", 50)) {
            p.stage("window 1 (6.250 s)");
            p.update(900, 90, 900);
            p.stage("window 2 (12.500 s)");
            p.update(100, 10, 100);
            // fails after 10 s without such a line
            String line = lineStartingWith(bytes, "fdbresolver: FoundationDB window, 16MiB, window 2 (12.500 s): 10.0%, 10 batches,");
            assertTrue(line.endsWith(" s so far"), line);
        }
    }

    @Test
    void theModeIsReadFromTheProperty() {
        assertEquals(Progress.Mode.BAR, Progress.Mode.of("bar"));
        assertEquals(Progress.Mode.BAR, Progress.Mode.of("true"));
        assertEquals(Progress.Mode.LINES, Progress.Mode.of("lines"));
        assertEquals(Progress.Mode.NONE, Progress.Mode.of("none"));
        assertEquals(Progress.Mode.NONE, Progress.Mode.of("false"));
        assertNull(Progress.Mode.of("sometimes"));
        assertNull(Progress.Mode.of(null));
    }
}
