package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.harness.trace.TraceFormatException;

/**
 * {@code fdbresolver COMMAND [options]}: finds the command, parses its options, runs it, and turns every
 * failure into one {@code error:} line and an exit code ({@link ExitCodes}). {@link #run} returns the exit
 * code; only {@link #main} exits.
 */
public final class Main {
    /** System property: {@code true}/{@code false} forces the progress bar on or off (the script sets it from isatty). */
    public static final String PROGRESS_PROPERTY = "fdbresolver.progress";

    private final Map<String, Command> commands = new LinkedHashMap<>();

    Main() {
        for (Command c : List.of(new GenCommand(), new ResolveCommand(), new HashCommand(), new DiffCommand(),
                new BenchCommand(), new DemoCommand())) {
            commands.put(c.name(), c);
        }
    }

    public static void main(String[] args) {
        int code = run(System.out, System.err, progressWanted(), args);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line; results go to {@code out}, errors and progress to {@code err}. */
    public static int run(PrintStream out, PrintStream err, boolean progress, String... args) {
        return new Main().execute(out, err, progress, Arrays.asList(args));
    }

    /** Progress only when stderr is a terminal: the script tells us (isatty 2), else the console decides. */
    static boolean progressWanted() {
        String forced = System.getProperty(PROGRESS_PROPERTY);
        if (forced != null) {
            return Boolean.parseBoolean(forced);
        }
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    private int execute(PrintStream out, PrintStream err, boolean progress, List<String> argv) {
        boolean verbose = argv.contains("--verbose");
        Command command = null;
        try {
            if (argv.isEmpty()) {
                throw new UsageException("no command given (see fdbresolver --help)");
            }
            String first = argv.getFirst();
            if (first.equals("--help") || first.equals("-h") || first.equals("help")) {
                if (argv.size() > 1 && commands.containsKey(argv.get(1))) {
                    out.print(commands.get(argv.get(1)).help());
                } else {
                    out.print(overview());
                }
                return ExitCodes.OK;
            }
            command = commands.get(first);
            if (command == null) {
                throw new UsageException("unknown command '" + first + "' (commands: " + String.join(", ", commands.keySet())
                        + "; see fdbresolver --help)");
            }
            List<String> rest = argv.subList(1, argv.size());
            if (rest.contains("--help") || rest.contains("-h")) {
                out.print(command.help());
                return ExitCodes.OK;
            }
            Args args = Args.parse(rest, command.flagNames());
            command.check(args);
            return command.run(args, new CommandContext(out, err, progress));
        } catch (UsageException | TraceFormatException | InvalidBatchException e) {
            return fail(err, verbose, e, e.getMessage(), ExitCodes.USAGE);
        } catch (NoSuchFileException e) {
            String message = e.getReason() != null ? e.getFile() + ": " + e.getReason() : "no such file or directory: " + e.getFile();
            return fail(err, verbose, e, message, ExitCodes.USAGE);
        } catch (AccessDeniedException e) {
            return fail(err, verbose, e, "permission denied: " + e.getFile(), ExitCodes.USAGE);
        } catch (FileSystemException e) {
            // a directory where a file should be, a file that cannot be created: the command line's paths are wrong
            return fail(err, verbose, e, e.getFile() + ": " + (e.getReason() != null ? e.getReason() : e.getMessage()),
                    ExitCodes.USAGE);
        } catch (IOException | UncheckedIOException e) {
            return fail(err, verbose, e, "I/O error: " + e.getMessage(), ExitCodes.FAILURE);
        } catch (OutOfMemoryError e) {
            return fail(err, verbose, e, "out of memory (give the JVM more with FDBRESOLVER_JAVA_OPTS=-Xmx...)",
                    ExitCodes.FAILURE);
        } catch (Exception | Error e) {
            return fail(err, verbose, e, "internal error: " + e + (verbose ? "" : " (run with --verbose for the stack trace)"),
                    ExitCodes.FAILURE);
        } finally {
            out.flush();
        }
    }

    private static int fail(PrintStream err, boolean verbose, Throwable e, String message, int code) {
        err.println("error: " + oneLine(message));
        if (verbose) {
            e.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    private static String oneLine(String message) {
        return message == null ? "(no message)" : message.replace('\n', ' ').replace('\r', ' ');
    }

    private String overview() {
        StringBuilder sb = new StringBuilder();
        sb.append("usage: fdbresolver COMMAND [options]   (fdbresolver COMMAND --help for its options)\n\n");
        sb.append("A conflict-detection engine (resolver) for FoundationDB, and its tools.\n\ncommands:\n");
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (Command c : commands.values()) {
            sb.append("  ").append(String.format("%-" + width + "s", c.name())).append("  ").append(c.summary()).append('\n');
        }
        sb.append("\nResults are printed as 'name: value' lines. Exit status: 0 success, 1 a comparison found\n")
                .append("differences, 2 bad usage or bad input, 3 another failure. See docs/cli.md.\n");
        return sb.toString();
    }
}
