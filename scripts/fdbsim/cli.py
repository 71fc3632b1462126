"""fdb-sim: the command line: parse it, find the build, run the schedule, write the report."""
import argparse
import ast
import datetime
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from . import config
from .config import (
    BROKEN, CHECKED_MODE, DEFAULT_RESOLVERS_FILES, DEFAULT_RESOLVERS_NAMED, DEFAULT_TESTS, NAMED_TESTS, RESOLVERS,
    UsageError, say,
)
from .testlist import cmake_cache_variables, parse_test_list, resolve_tests, with_derived_variables
from .simulation import Bridge, Simulator, shell_quote
from .results import Results
from .schedule import Unit, execute
from .report import fmt_seconds, verdict, write_reports

# ---- Main --------------------------------------------------------------------------------------------------

def user_guide():
    """The entry point's docstring, scripts/fdb-sim's: --help prints it, so it is written once, where a reader of
    the script meets it first."""
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "fdb-sim")
    with open(script) as f:
        return ast.get_docstring(ast.parse(f.read()), clean=False)


def parse_args(argv):
    guide = user_guide()
    named = "\n".join(f"  {t.name:<24} {t.what} ({t.file}{', ' + t.configuration if t.configuration else ''})"
                      for t in NAMED_TESTS)
    resolvers = "\n".join(f"  {name:<13} {what}" for name, what in RESOLVERS.items())
    p = argparse.ArgumentParser(
        prog="scripts/fdb-sim", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=guide.split(": ", 1)[1].rsplit("\n\nExit code", 1)[0],
        epilog=f"Named tests:\n{named}\n\nResolvers:\n{resolvers}\n  The checked mode: the plugin decides, and "
               f"FoundationDB's skip list decides every batch\n  beside it ({CHECKED_MODE}).\n\n"
               f"Exit code{guide.rsplit('Exit code', 1)[1]}")
    p.add_argument("--tests", default=",".join(DEFAULT_TESTS), metavar="LIST",
                   help="comma-separated names (below), test files, globs and folders of FoundationDB's source, "
                        "e.g. tests/fast/AtomicOps.toml,tests/rare (default: every named test but the negative one and the txn-timeout ones)")
    p.add_argument("--seeds", default="5", metavar="N|S1,S2,...", help="a count (seeds 1..N) or a list (\"2,\": seed 2 alone; default: 5)")
    p.add_argument("--resolvers", metavar="LIST",
                   help=f"comma-separated, below (default: {','.join(DEFAULT_RESOLVERS_NAMED)} for the named tests, "
                        f"{','.join(DEFAULT_RESOLVERS_FILES)} for test files)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="simulations at once (default: 1; each is one busy thread plus the JVM's)")
    p.add_argument("--out", metavar="DIR", help="where results, logs and the report go (default: target/fdb-sim); "
                                                "a second invocation with the same folder skips the runs done")
    p.add_argument("--results", metavar="FILE",
                   help="the results file (default: OUT/results.jsonl); one kept in the repository carries finished "
                        "runs to another machine with a build from the same inputs and the same engine")
    p.add_argument("--timeout", type=int, default=3600, metavar="SECONDS",
                   help="wall seconds per simulation before it counts as failed (default: 3600); the other "
                        "resolvers of a seed whose stock run timed out are not run")
    p.add_argument("--budget", default=config.PLUGIN_BUDGET, metavar="SIZE",
                   help=f"the plugin's memory_budget (default: {config.PLUGIN_BUDGET}); a run with another budget is another run")
    p.add_argument("--keep-logs", choices=("failed", "all", "none"), default="failed",
                   help="trace logs to keep: of the test x seeds whose runs did not all pass and agree (default), "
                        "all, or none")
    p.add_argument("--run-ignored", action="store_true",
                   help="also run files FoundationDB's tests/CMakeLists.txt marks IGNORE or LONG_RUNNING")
    p.add_argument("--list", action="store_true",
                   help="print which tests would run and which cannot (with the reason), then exit; needs only "
                        "FoundationDB's source, not the build")
    p.add_argument("--plugin-knobs", choices=("command-line", "test-file"), default="command-line",
                   help="where the plugin's two knobs go: fdbserver's command line (default: set before the "
                        "simulated cluster starts, for both test formats), or the test file's [[knobs]] (TOML files "
                        "only, as this script did before; .txt files keep the command line)")
    p.add_argument("--bridge", metavar="DIR",
                   help="a built jni-bridge/target to run (native/libfdbresolver.so, its jars) instead of building "
                        "this checkout's")
    p.add_argument("--cache", metavar="DIR", help="build-fdb's cache (default: build-fdb's default)")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs needs a positive count")
    if args.timeout < 1:
        p.error("--timeout needs seconds")
    if not re.fullmatch(r"[0-9]+(,[0-9]+)*,?", args.seeds):
        p.error("--seeds wants a count or a comma-separated list of seeds")
    # A list names seeds ("2,7"; "2," is seed 2 alone); a count N is seeds 1..N.
    seeds = [int(s) for s in args.seeds.split(",") if s] if "," in args.seeds else list(range(1, int(args.seeds) + 1))
    if not seeds:
        p.error("--seeds wants at least one seed")
    args.seed_list = list(dict.fromkeys(seeds))
    if args.resolvers is not None:
        args.resolver_list = [r for r in args.resolvers.split(",") if r]
        for r in args.resolver_list:
            if r not in RESOLVERS:
                p.error(f"unknown resolver '{r}' ({', '.join(RESOLVERS)})")
    else:
        args.resolver_list = None
    return args


def build_fdb_where(root, cache):
    cmd = [os.path.join(root, "scripts", "build-fdb"), "--where"] + (["--cache", cache] if cache else [])
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    where = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
    return proc.returncode, where, proc.stderr.strip()


def git_commit(root):
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", "plugin", "jni-bridge"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "") if head else "?"
    except OSError:
        return "?"


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 2
    if not re.fullmatch(r"[0-9]+[kmgtKMGT]?", args.budget):
        print(f"error: --budget {args.budget}: a size in bytes, or with k, m, g or t", file=sys.stderr)
        return 2
    config.PLUGIN_BUDGET = args.budget
    java_home = os.environ.get("JAVA_HOME") or "/usr/lib/jvm/temurin-25-jdk-amd64"
    os.environ["JAVA_HOME"] = java_home
    where_rc, where, where_err = build_fdb_where(root, args.cache)
    source = where.get("fdb-source")
    if not source or not os.path.isdir(os.path.join(source, "tests")):
        print(f"error: FoundationDB's source is not prepared ({source or 'build-fdb --where printed none'}): "
              "run scripts/build-fdb first", file=sys.stderr)
        return 2
    fdbserver = where.get("fdbserver", "")
    build_dir = os.path.dirname(os.path.dirname(fdbserver)) if fdbserver else ""
    cache_file = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.isfile(cache_file):
        with open(cache_file, encoding="utf-8", errors="replace") as f:
            variables = cmake_cache_variables(f.read())
        variables_source = f"this build's configuration ({cache_file})"
    else:
        variables = with_derived_variables({})
        variables_source = "FoundationDB's defaults (no CMakeCache.txt beside the build)"
    with open(os.path.join(source, "tests", "CMakeLists.txt"), encoding="utf-8", errors="replace") as f:
        listed = parse_test_list(f.read(), variables)
    try:
        tests = resolve_tests(args.tests.split(","), source, listed, variables, args.run_ignored, build_dir)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    def resolvers_of(t):
        if args.resolver_list is not None:
            return args.resolver_list
        return DEFAULT_RESOLVERS_NAMED if t.named else DEFAULT_RESOLVERS_FILES

    runnable = [t for t in tests if not t.not_runnable]
    if args.list:
        for t in tests:
            if t.not_runnable:
                print(f"not run  {t.name}: {t.not_runnable}")
            else:
                rs = [BROKEN] if t.expect == "fail" else resolvers_of(t)
                print(f"run      {t.name} ({', '.join(rs)})")
        print(f"{len(runnable)} to run x {len(args.seed_list)} seeds, {len(tests) - len(runnable)} cannot run here "
              f"(test list read with {variables_source})")
        return 0
    if where_rc == 4:
        print(f"error: FoundationDB's build is stale ({where_err}): run scripts/build-fdb, which rebuilds what changed",
              file=sys.stderr)
        return 2
    if where_rc != 0:
        print("error: FoundationDB is not built: run scripts/build-fdb first (it prints where the binaries go)"
              + (f"\n{where_err}" if where_err else ""), file=sys.stderr)
        return 2
    out = os.path.abspath(args.out or os.path.join(root, "target", "fdb-sim"))
    os.makedirs(out, exist_ok=True)
    # One invocation at a time per folder: two would run the same simulations and interleave their results.
    lock = open(os.path.join(out, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"error: another fdb-sim is running into {out}", file=sys.stderr)
        return 2
    units = [Unit(t, s, resolvers_of(t)) for s in args.seed_list for t in runnable]
    # Seed-major: all tests at seed 1 first, so that an interrupted suite has covered every file evenly.
    needs_plugin = any(r not in ("stock",) for u in units for r in u.resolvers)
    bridge = None
    if needs_plugin:
        target = args.bridge or os.path.join(root, "jni-bridge", "target")
        if not args.bridge:
            say("building the JNI bridge and the engine (jni-bridge/target)")
            log = os.path.join(out, "build.log")
            with open(log, "w") as f:
                mvn = [os.path.join(root, "mvnw"), "-B", "-q"]
                goal = ["package", "-DskipTests", "-pl", "jni-bridge", "-am"]
                ok = subprocess.run(mvn + ["-o"] + goal, cwd=root, stdout=f, stderr=subprocess.STDOUT).returncode == 0 \
                    or subprocess.run(mvn + goal, cwd=root, stdout=f, stderr=subprocess.STDOUT).returncode == 0
            if not ok:
                print(f"error: the bridge build failed (log: {log})", file=sys.stderr)
                return 2
        try:
            bridge = Bridge.snapshot(target, out)
        except UsageError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    simulator = Simulator(fdbserver, source, out, java_home, bridge, args.timeout, git_commit(root), args.plugin_knobs,
                          variables.get("CMAKE_CXX_COMPILER", ""))
    results_path = os.path.abspath(args.results) if args.results else os.path.join(out, "results.jsonl")
    os.makedirs(os.path.dirname(results_path), exist_ok=True)
    results = Results(results_path)
    lookup = lambda t, s, r: simulator.current(results, t, s, r)
    command = "scripts/fdb-sim " + " ".join(shell_quote(a) for a in argv)
    started = time.time()
    invocation = {"fdbserver": fdbserver, "started": datetime.datetime.now().isoformat(timespec="seconds")}
    total_runs = sum(len(u.resolvers) for u in units)
    say(f"{len(runnable)} tests x {len(args.seed_list)} seeds, {total_runs} simulations, {args.jobs} at a time; "
        f"{len(tests) - len(runnable)} tests cannot run here; results and logs under {out}")
    report_lock = threading.Lock()
    skipped = {}

    def progress(done, to_do, row):
        stock = results.get(row["test"], row["seed"], "stock")
        same = ""
        if row["resolver"] not in ("stock",) and stock and row["expect"] == "pass":
            same = ", same unseed as stock" if stock.get("unseed") == row.get("unseed") else \
                f", unseed differs from stock's {stock.get('unseed')}"
        say(f"[{done}/{to_do}] {row['test']} seed {row['seed']} {row['resolver']}: {verdict(row)} (unseed "
            f"{row.get('unseed')}{same}, {fmt_seconds(row.get('simulated_s'))} sim s, {fmt_seconds(row['wall_s'])} wall s)")
        with report_lock:
            write_reports(out, command, tests, args.seed_list, resolvers_of, lookup, skipped, invocation, variables_source)

    original = {}
    interrupted = []

    def on_signal(signum, frame):
        interrupted.append(signum)
        simulator.stop()

    # Not SIGHUP: under nohup it stays ignored, as it should.
    for sig in (signal.SIGINT, signal.SIGTERM):
        original[sig] = signal.signal(sig, on_signal)
    execute(units, simulator, results, args.jobs, args.keep_logs, progress, skipped)
    invocation["elapsed_s"] = time.time() - started
    invocation["interrupted"] = bool(interrupted)
    log = os.path.join(out, "invocations.jsonl")
    with open(log, "a") as f:
        f.write(json.dumps({"command": command, "started": invocation["started"], "elapsed_s": round(invocation["elapsed_s"]),
                            "interrupted": bool(interrupted)}) + "\n")
    with open(log) as f:
        earlier = [json.loads(line) for line in f if line.strip()]
    invocation["count"], invocation["total_s"] = len(earlier), sum(e["elapsed_s"] for e in earlier)
    report, problems = write_reports(out, command, tests, args.seed_list, resolvers_of, lookup, skipped,
                                     invocation, variables_source)
    print(report)
    if interrupted:
        say(f"interrupted: the runs finished so far are kept; the same command with --out {out} goes on from there")
        return 130
    say(f"report in {os.path.join(out, 'report.md')}, every run in {os.path.join(out, 'runs.md')}")
    return 1 if problems else 0
