package org.fdbresolver.harness.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.harness.trace.TraceFormatException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code fdbresolver COMMAND [options]}: picocli parses the command line into one {@link Subcommand} and runs
 * it; every failure becomes one {@code error:} line on stderr and an exit code ({@link ExitCodes}). {@link #run}
 * returns the exit code; only {@link #main} exits.
 */
public final class Main {
    /**
     * System property: how progress shows on stderr, {@code bar} (or {@code true}), {@code lines} or {@code none}
     * (or {@code false}); the script sets {@code bar} when stderr is a terminal, else {@code lines}.
     */
    public static final String PROGRESS_PROPERTY = "fdbresolver.progress";
    private static final int HELP_WIDTH = 100;

    private Main() {
    }

    /** The top of the command tree: lists the subcommands; with none given, a usage error. */
    @Command(name = "fdbresolver",
            subcommands = {GenCommand.class, ResolveCommand.class, HashCommand.class, DiffCommand.class,
                    BenchCommand.class, DemoCommand.class, RetentionCommand.class, SizeCommand.class, FuzzCommand.class,
                    RegroupCommand.class,
                    HelpCommand.class},
            description = "A conflict-detection engine (resolver) for FoundationDB, and its tools.")
    static final class Root implements Callable<Integer> {
        static final String FOOTER = """
                Results are printed as 'name: value' lines. Exit status: 0 success, 1 a comparison found
                differences, 2 bad usage or bad input (also a file that cannot be read or written),
                3 an internal error or out of memory. See docs/cli.md.
                """;

        @Spec
        CommandSpec spec;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
        boolean help;

        @Override
        public Integer call() {
            throw new ParameterException(spec.commandLine(), "no command given");
        }
    }

    public static void main(String[] args) {
        int code = run(System.out, System.err, progressWanted(), args);
        System.out.flush();
        System.exit(code);
    }

    /** Runs one command line with a progress bar or none; results go to {@code out}, errors and progress to {@code err}. */
    public static int run(PrintStream out, PrintStream err, boolean progressBar, String... args) {
        return run(out, err, progressBar ? Progress.Mode.BAR : Progress.Mode.NONE, args);
    }

    /** Runs one command line; results go to {@code out}, errors and progress to {@code err}. */
    static int run(PrintStream out, PrintStream err, Progress.Mode progress, String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose");
        PrintWriter outWriter = new PrintWriter(out, true, StandardCharsets.UTF_8);
        PrintWriter errWriter = new PrintWriter(err, true, StandardCharsets.UTF_8);
        try (EngineWarnings _ = new EngineWarnings(err, progress == Progress.Mode.BAR)) {
            CommandLine commandLine = commandLine(new CommandContext(out, err, progress));
            commandLine.setOut(outWriter);
            commandLine.setErr(errWriter);
            commandLine.setParameterExceptionHandler((e, given) -> fail(err, verbose, e, usageMessage(e), ExitCodes.USAGE));
            commandLine.setExecutionExceptionHandler((e, command, parsed) -> failure(err, verbose, e));
            return commandLine.execute(args);
        } catch (OutOfMemoryError e) {
            return fail(err, verbose, e, "out of memory (give the JVM more with FDBRESOLVER_JAVA_OPTS=-Xmx...)",
                    ExitCodes.FAILURE);
        } catch (RuntimeException | Error e) {
            return fail(err, verbose, e, internal(e, verbose), ExitCodes.FAILURE);
        } finally {
            outWriter.flush();
            errWriter.flush();
            out.flush();
        }
    }

    /** The command tree, every subcommand attached to {@code context} and its help completed from the registries. */
    static CommandLine commandLine(CommandContext context) {
        CommandLine commandLine = new CommandLine(new Root(), new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K made = CommandLine.defaultFactory().create(type);
                if (made instanceof Subcommand s) {
                    s.attach(context);
                }
                return made;
            }
        });
        commandLine.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        commandLine.setExpandAtFiles(false); // "@name" is a file name, not a file of arguments
        // An empty name would become the working folder ("error: : is a directory"): refused naming the option.
        commandLine.registerConverter(Path.class, text -> {
            if (text.isEmpty()) {
                throw new TypeConversionException("'' is not a file name");
            }
            return Path.of(text);
        });
        commandLine.setUsageHelpWidth(HELP_WIDTH);
        style(commandLine.getCommandSpec());
        footer(commandLine.getCommandSpec(), Root.FOOTER);
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            style(sub.getCommandSpec());
            if (sub.getCommand() instanceof Subcommand s) {
                s.describe(sub.getCommandSpec());
            }
        }
        return commandLine;
    }

    /** One help layout for every command: lowercase headings, options in the order declared. */
    private static void style(CommandSpec spec) {
        spec.usageMessage()
                .synopsisHeading("usage: ")
                .descriptionHeading("%n")
                .parameterListHeading("%narguments:%n")
                .optionListHeading("%noptions:%n")
                .commandListHeading("%ncommands:%n")
                .footerHeading("%n")
                .sortOptions(false)
                .sortSynopsis(false);
    }

    /** Text after the options, printed as written (picocli would re-wrap it and lose its indentation). */
    static void footer(CommandSpec spec, String text) {
        Map<String, IHelpSectionRenderer> sections = new LinkedHashMap<>(spec.usageMessage().sectionMap());
        sections.put(UsageMessageSpec.SECTION_KEY_FOOTER, help -> text);
        spec.usageMessage().sectionMap(sections);
    }

    /**
     * A bar when stderr is a terminal, plain lines otherwise: the script tells us (isatty 2), else the console
     * decides.
     */
    static Progress.Mode progressWanted() {
        Progress.Mode forced = Progress.Mode.of(System.getProperty(PROGRESS_PROPERTY));
        if (forced != null) {
            return forced;
        }
        java.io.Console console = System.console();
        return console != null && console.isTerminal() ? Progress.Mode.BAR : Progress.Mode.LINES;
    }

    /** A command line picocli could not parse, in this CLI's words, with where to find help. */
    static String usageMessage(ParameterException e) {
        CommandSpec spec = e.getCommandLine().getCommandSpec();
        String message;
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().getFirst();
            if (u.isUnknownOption()) {
                message = "unknown option '" + first + "'";
            } else if (spec.parent() == null) {
                message = "unknown command '" + first + "'; commands: "
                        + String.join(", ", spec.subcommands().keySet().stream().filter(n -> !n.equals("help")).toList());
            } else {
                message = "unexpected argument '" + first + "'";
            }
        } else {
            // (picocli 4.7.7 says "option option '--x'" in one of its messages)
            String text = e.getMessage() == null ? "bad usage" : e.getMessage().replace("option option", "option");
            if (text.endsWith(".")) {
                text = text.substring(0, text.length() - 1);
            }
            message = text.isEmpty() ? text : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
        }
        return message + " (see " + spec.qualifiedName() + " --help)";
    }

    /** Maps what a command threw to its error line and exit code. */
    private static int failure(PrintStream err, boolean verbose, Exception e) {
        return switch (e) {
            case UsageException u -> fail(err, verbose, u, u.getMessage(), ExitCodes.USAGE);
            case TraceFormatException t -> fail(err, verbose, t, t.getMessage(), ExitCodes.USAGE);
            case InvalidBatchException b -> fail(err, verbose, b, b.getMessage(), ExitCodes.USAGE);
            case ParameterException p -> fail(err, verbose, p, usageMessage(p), ExitCodes.USAGE);
            case NoSuchFileException n -> fail(err, verbose, n,
                    n.getReason() != null ? n.getFile() + ": " + n.getReason() : "no such file or directory: " + n.getFile(),
                    ExitCodes.USAGE);
            case AccessDeniedException a -> fail(err, verbose, a, "permission denied: " + a.getFile(), ExitCodes.USAGE);
            // a directory where a file should be, a file that cannot be created: the command line's paths are wrong
            case FileSystemException f -> fail(err, verbose, f,
                    f.getFile() + ": " + (f.getReason() != null ? f.getReason() : f.getMessage()), ExitCodes.USAGE);
            // reading or writing a file named on the command line failed: bad input, as far as the user can tell
            case IOException io -> fail(err, verbose, io, "I/O error: " + io.getMessage(), ExitCodes.USAGE);
            case UncheckedIOException io -> fail(err, verbose, io, "I/O error: " + io.getMessage(), ExitCodes.USAGE);
            default -> fail(err, verbose, e, internal(e, verbose), ExitCodes.FAILURE);
        };
    }

    private static String internal(Throwable e, boolean verbose) {
        return "internal error: " + e + (verbose ? "" : " (run with --verbose for the stack trace)");
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
}
