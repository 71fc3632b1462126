package org.fdbresolver.harness.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.fdbresolver.api.InvalidBatchException;
import org.fdbresolver.harness.trace.TraceFormatException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * One {@code fdbresolver} subcommand: a picocli {@code @Command} whose fields are its options and parameters.
 * This base gives every subcommand {@code --help} and {@code --verbose}, the streams it prints to, and a
 * place for help text that only the registries know at run time (engines, workloads).
 *
 * <p>To add a subcommand: extend this class, annotate it with {@code @Command(name = ..., description = ...)},
 * and list it in {@link Main.Root}'s {@code subcommands}. Parsing, help, usage errors and exit codes then
 * work as for every other command.
 */
abstract class Subcommand implements Callable<Integer> {
    /** Options of this base come after a command's own in {@code --help}. */
    private static final int LAST = 1000;

    @Option(names = "--verbose", order = LAST, description = "print the stack trace with an error")
    boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, order = LAST + 1, description = "show this help and exit")
    boolean help;

    /** Set by {@link Main} when it creates the command. */
    private CommandContext context;

    final void attach(CommandContext context) {
        this.context = context;
    }

    /**
     * Runs the command and returns the exit code ({@link ExitCodes}); throwing is how it reports an error. Its
     * result lines ({@link CommandContext#line}) are printed after it returns, none if it throws.
     */
    abstract int run(CommandContext context) throws Exception;

    /**
     * The one file this command reads, named in the error when its contents are wrong (a malformed trace, an
     * invalid batch: the reader's messages say where in the file, not which file); {@code null} when the
     * command reads none or names its files itself.
     */
    Path input() {
        return null;
    }

    /** Help text after the options: what it prints, engines or workloads from the registries. */
    String details() {
        return "";
    }

    /**
     * Completes the command's model before the command line is parsed. The default adds {@link #details()}
     * as the help footer; a command whose options come from a registry adds them here too.
     */
    void describe(CommandSpec spec) {
        Main.footer(spec, details());
    }

    @Override
    public final Integer call() throws Exception {
        int code;
        try {
            code = run(context);
        } catch (TraceFormatException | InvalidBatchException e) {
            throw InputError.naming(input(), e);
        }
        context.printResults();
        return code;
    }
}
