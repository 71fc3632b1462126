/**
 * The {@code fdbresolver} command line: one entry point ({@link org.fdbresolver.harness.cli.Main}) with
 * subcommands {@code gen}, {@code resolve}, {@code hash}, {@code diff}, {@code bench}, {@code demo},
 * {@code retention} and {@code fuzz}
 * (docs/cli.md describes each). picocli parses every command line; each subcommand is a picocli
 * {@code @Command} extending {@link org.fdbresolver.harness.cli.Subcommand}, and its options are annotated
 * fields (shared ones in mixins such as {@link org.fdbresolver.harness.cli.EngineOptions}; byte counts,
 * counts and seeds through the converters {@link org.fdbresolver.harness.cli.SizeConverter},
 * {@link org.fdbresolver.harness.cli.CountConverter} and {@link org.fdbresolver.harness.cli.SeedConverter}).
 *
 * <p>Conventions every command keeps: results on stdout as {@code name: value} lines, one per line, hashes in
 * lowercase hex; a progress bar on stderr only when stderr is a terminal and the work takes more than a couple
 * of seconds; any failure is exactly one {@code error: ...} line on stderr (a stack trace only with
 * {@code --verbose}) and a non-zero exit code (2 for usage and input errors, 3 for I/O and internal failures,
 * 1 when a comparison answers "no"). Output files are written beside their target as {@code FILE.tmp} and
 * renamed on success, so a failed run leaves nothing that looks complete. {@link org.fdbresolver.harness.cli.Main#run}
 * returns the exit code instead of exiting, so tests run commands in-process.
 */
package org.fdbresolver.harness.cli;
